package dev.ratelimit.deployment.lockout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.UUID;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;

/**
 * {@code block-for}: once a policy denies a key, every request on that key is denied until the lock-out ends, whatever
 * the algorithm would admit meanwhile; {@code Retry-After} and {@code t} say when it ends; a denial by another policy
 * of the same request does not lock out; {@code reset} lifts it; every rate algorithm; on the backend of the subclass.
 */
abstract class LockoutScenarios {

    static final String P = "quarkus.ratelimit.policies.";
    static final String[] ALGORITHMS = { "fixed-window", "sliding-window-log", "sliding-window-counter",
            "token-bucket", "leaky-bucket", "gcra" };

    /** {@code login}: 2 per second per client, then locked out for an hour; one policy per algorithm too. */
    static QuarkusUnitTest application() {
        QuarkusUnitTest t = new QuarkusUnitTest()
                .withApplicationRoot(jar -> jar.addClasses(LockoutScenarios.class, Login.class))
                .overrideConfigKey("quarkus.http.test-port", "0")
                .overrideConfigKey("quarkus.ratelimit.key-prefix", "lockout-" + System.nanoTime())
                .overrideConfigKey(P + "login.algorithm", "sliding-window-log")
                .overrideConfigKey(P + "login.limit", "2")
                .overrideConfigKey(P + "login.window", "1s")
                .overrideConfigKey(P + "login.key", "header:X-Client")
                .overrideConfigKey(P + "login.block-for", "1h")
                .overrideConfigKey(P + "site.limit", "3")
                .overrideConfigKey(P + "site.window", "1h")
                .overrideConfigKey(P + "site.key", "header:X-Site");
        for (String a : ALGORITHMS) {
            t.overrideConfigKey(P + a + ".algorithm", a)
                    .overrideConfigKey(P + a + ".limit", "2")
                    .overrideConfigKey(P + a + ".window", "1s")
                    .overrideConfigKey(P + a + ".block-for", "2h");
        }
        return t;
    }

    @Path("/lockout")
    public static class Login {
        @GET
        @Path("login")
        @RateLimit("login")
        public String login() {
            return "ok";
        }

        @GET
        @Path("both")
        @RateLimit("login")
        @RateLimit("site")
        public String both() {
            return "ok";
        }
    }

    @Inject
    RateLimiter limiter;

    protected abstract RateLimitDecision.Source expectedSource();

    private static Response login(String client) {
        return RestAssured.given().header("X-Client", client).get("/lockout/login");
    }

    @Test
    void aDeniedClientStaysDeniedUntilTheLockOutEnds() throws InterruptedException {
        String client = "c-" + UUID.randomUUID();
        assertEquals(200, login(client).statusCode());
        assertEquals(200, login(client).statusCode());
        Response denied = login(client);
        assertEquals(429, denied.statusCode());
        long retry = Long.parseLong(denied.header("Retry-After"));
        assertTrue(retry > 3590 && retry <= 3600, () -> "the lock-out's end, not the window's: " + retry);
        assertTrue(denied.header("RateLimit").matches("\"login\";r=0;t=(359\\d|3600)"), denied.header("RateLimit"));
        // the window (1 s) has passed: the algorithm would admit, the lock-out does not
        Thread.sleep(1_200);
        Response still = login(client);
        assertEquals(429, still.statusCode(), "locked out past the window");
        long left = Long.parseLong(still.header("Retry-After"));
        assertTrue(left > 3580 && left <= retry, () -> "counting down, not renewed: " + left + " after " + retry);
        assertTrue(still.header("RateLimit").startsWith("\"login\";r=0;"), still.header("RateLimit"));
        // another client is not affected
        assertEquals(200, login("other-" + client).statusCode());
        // state reads the lock-out without charging or renewing it
        // (the identity as the header key source derives it)
        PolicyDecision state = limiter.stateBlocking("login", "hdr=" + client);
        assertFalse(state.allowed(), state::toString);
        assertEquals(0, state.remaining(), state::toString);
        assertTrue(state.retryAfter().compareTo(Duration.ofMinutes(59)) > 0, state::toString);
        // reset lifts it at once
        limiter.resetBlocking("login", "hdr=" + client);
        assertEquals(200, login(client).statusCode(), "reset lifts the lock-out");
    }

    @Test
    void aDenialByAnotherPolicyOfTheRequestDoesNotLockOut() throws InterruptedException {
        String client = "d-" + UUID.randomUUID();
        String site = "s-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            Thread.sleep(i == 2 ? 1_100 : 0); // the third request in a new login window: login admits it
            assertEquals(200, RestAssured.given().header("X-Client", client).header("X-Site", site)
                    .get("/lockout/both").statusCode());
        }
        Response denied = RestAssured.given().header("X-Client", client).header("X-Site", site).get("/lockout/both");
        assertEquals(429, denied.statusCode(), "site is exhausted");
        assertTrue(denied.header("RateLimit").contains("\"site\";r=0"), denied.header("RateLimit"));
        // login admitted that request itself (one unit left in its window): it locked nothing out
        assertEquals(200, login(client).statusCode(), "login never denied this client");
    }

    /** Waits for the start of a second (a 1 s window on the Redis clock, which is this host's): 3 calls fit in it. */
    private static void atTheStartOfASecond() throws InterruptedException {
        while (System.currentTimeMillis() % 1000 > 300) {
            Thread.sleep(20);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "fixed-window", "sliding-window-log", "sliding-window-counter", "token-bucket",
            "leaky-bucket", "gcra" })
    void everyRateAlgorithmLocksOut(String policy) throws InterruptedException {
        String key = "k-" + UUID.randomUUID();
        atTheStartOfASecond();
        assertTrue(limiter.checkBlocking(policy, key).allowed());
        assertTrue(limiter.checkBlocking(policy, key).allowed());
        RateLimitDecision denied = limiter.checkBlocking(policy, key);
        assertFalse(denied.allowed(), denied::toString);
        assertEquals(expectedSource(), denied.source());
        assertTrue(denied.retryAfter().compareTo(Duration.ofMinutes(119)) > 0, () -> "the lock-out: " + denied);
        Thread.sleep(2_100); // two windows: every algorithm would admit again
        RateLimitDecision still = limiter.checkBlocking(policy, key);
        assertFalse(still.allowed(), () -> "still locked out: " + still);
        assertEquals(0, still.remaining(), still::toString);
        assertTrue(still.retryAfter().compareTo(denied.retryAfter()) < 0, () -> "not renewed: " + still);
        limiter.resetBlocking(policy, key);
        assertTrue(limiter.checkBlocking(policy, key).allowed(), "reset lifts the lock-out");
    }
}
