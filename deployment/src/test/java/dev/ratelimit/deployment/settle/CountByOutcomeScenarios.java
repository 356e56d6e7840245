package dev.ratelimit.deployment.settle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * {@code count}: a login limiter counting wrong passwords only (5 per hour per user): successful logins cost nothing,
 * the sixth failure is denied, and concurrent failures never get past the limit (each reserves its unit while it
 * runs, and only a response that does not count gives it back); a list of statuses; on the backend of the subclass.
 */
abstract class CountByOutcomeScenarios {

    static final String P = "quarkus.ratelimit.policies.";

    static QuarkusUnitTest application() {
        return new QuarkusUnitTest()
                .withApplicationRoot(jar -> jar.addClasses(CountByOutcomeScenarios.class, Login.class))
                .overrideConfigKey("quarkus.http.test-port", "0")
                .overrideConfigKey("quarkus.ratelimit.key-prefix", "count-" + System.nanoTime())
                .overrideConfigKey(P + "login.algorithm", "sliding-window-log")
                .overrideConfigKey(P + "login.limit", "5")
                .overrideConfigKey(P + "login.window", "1h")
                .overrideConfigKey(P + "login.key", "header:X-User")
                .overrideConfigKey(P + "login.count", "failures")
                .overrideConfigKey(P + "forbidden.paths", "/count/guarded")
                .overrideConfigKey(P + "forbidden.algorithm", "fixed-window")
                .overrideConfigKey(P + "forbidden.limit", "2")
                .overrideConfigKey(P + "forbidden.window", "1h")
                .overrideConfigKey(P + "forbidden.key", "header:X-User")
                .overrideConfigKey(P + "forbidden.count", "401, 403")
                .overrideConfigKey(P + "ok.algorithm", "token-bucket")
                .overrideConfigKey(P + "ok.limit", "2")
                .overrideConfigKey(P + "ok.window", "1h")
                .overrideConfigKey(P + "ok.key", "header:X-User")
                .overrideConfigKey(P + "ok.count", "successes");
    }

    @Path("/count")
    public static class Login {
        @GET
        @Path("login")
        @RateLimit("login")
        public Response login(@HeaderParam("X-Password") String password, @HeaderParam("X-Slow") String slow)
                throws InterruptedException {
            if (slow != null) {
                Thread.sleep(Long.parseLong(slow));
            }
            return "secret".equals(password) ? Response.ok("welcome").build() : Response.status(401).build();
        }

        @GET
        @Path("guarded")
        public Response guarded(@HeaderParam("X-Status") int status) {
            return Response.status(status).build();
        }

        @GET
        @Path("ok")
        @RateLimit("ok")
        public Response ok(@HeaderParam("X-Status") int status) {
            return Response.status(status).build();
        }
    }

    private static int login(String user, String password) {
        return RestAssured.given().header("X-User", user).header("X-Password", password).get("/count/login")
                .statusCode();
    }

    @Test
    void successfulLoginsCostNothingAndTheSixthFailureIsDenied() {
        String user = "u-" + UUID.randomUUID();
        for (int i = 0; i < 12; i++) {
            assertEquals(200, login(user, "secret"), "a successful login is given back its unit");
        }
        for (int i = 0; i < 4; i++) {
            assertEquals(401, login(user, "guess" + i));
            assertEquals(200, login(user, "secret"), "successes between failures cost nothing either");
        }
        assertEquals(401, login(user, "guess4"), "the fifth failure");
        var denied = RestAssured.given().header("X-User", user).header("X-Password", "guess").get("/count/login");
        assertEquals(429, denied.statusCode(), "five failures: the limit");
        assertNotNull(denied.header("Retry-After"));
        assertEquals(429, login(user, "secret"), "once limited, the user waits like anyone limited");
        assertEquals(200, login("other-" + user, "secret"));
    }

    @Test
    void concurrentFailuresNeverPassTheLimit() throws Exception {
        String user = "c-" + UUID.randomUUID();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<Integer>> all = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                all.add(CompletableFuture.supplyAsync(() -> RestAssured.given().header("X-User", user)
                        .header("X-Password", "wrong").header("X-Slow", "400").get("/count/login").statusCode(), pool));
            }
            int unauthorized = 0;
            int limited = 0;
            for (CompletableFuture<Integer> f : all) {
                int s = f.get();
                unauthorized += s == 401 ? 1 : 0;
                limited += s == 429 ? 1 : 0;
            }
            assertEquals(5, unauthorized, "each failure held its unit while it ran: exactly the limit got through");
            assertEquals(3, limited);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(429, login(user, "wrong"), "a sixth failure is denied");
    }

    @Test
    void aListOfStatusesCountsThoseOnlyAndSuccessesCountSuccessesOnly() {
        String user = "s-" + UUID.randomUUID();
        for (int status : new int[] { 200, 404, 500, 200, 204 }) {
            assertEquals(status, RestAssured.given().header("X-User", user).header("X-Status", status)
                    .get("/count/guarded").statusCode());
        }
        assertEquals(403, RestAssured.given().header("X-User", user).header("X-Status", 403).get("/count/guarded")
                .statusCode());
        assertEquals(401, RestAssured.given().header("X-User", user).header("X-Status", 401).get("/count/guarded")
                .statusCode());
        assertEquals(429, RestAssured.given().header("X-User", user).header("X-Status", 200).get("/count/guarded")
                .statusCode(), "401 and 403 counted: the limit of 2");

        for (int status : new int[] { 500, 404, 401, 503 }) {
            assertEquals(status, RestAssured.given().header("X-User", user).header("X-Status", status)
                    .get("/count/ok").statusCode(), "failures cost nothing on a successes-only policy");
        }
        assertEquals(200, RestAssured.given().header("X-User", user).header("X-Status", 200).get("/count/ok")
                .statusCode());
        assertEquals(201, RestAssured.given().header("X-User", user).header("X-Status", 201).get("/count/ok")
                .statusCode());
        assertEquals(429, RestAssured.given().header("X-User", user).header("X-Status", 200).get("/count/ok")
                .statusCode(), "two successes counted: the limit");
    }
}
