package dev.ratelimit.deployment.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.util.List;
import java.util.UUID;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/**
 * The operators' endpoint on the management interface, on a real Redis: the policies with their values; a key's
 * state by the identity as the policy derives it (a header's value), without charging it; its reset; a key's override
 * set and cleared; the keys denied most lately; and each operation refused without credentials (401) or without the
 * role it needs (403).
 */
class AdminEndpointTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Api.class))
            .setForcedDependencies(List.of(Dependency.of("io.quarkus",
                    "quarkus-elytron-security-properties-file-deployment", Version.getVersion())))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "admin-" + System.nanoTime())
            .overrideConfigKey("quarkus.management.enabled", "true")
            .overrideConfigKey("quarkus.management.test-port", "0")
            .overrideConfigKey("quarkus.management.auth.enabled", "true")
            .overrideConfigKey("quarkus.management.auth.basic", "true")
            .overrideConfigKey("quarkus.security.users.embedded.enabled", "true")
            .overrideConfigKey("quarkus.security.users.embedded.plain-text", "true")
            .overrideConfigKey("quarkus.security.users.embedded.users.ops", "ops-secret")
            .overrideConfigKey("quarkus.security.users.embedded.roles.ops", "ratelimit-admin")
            .overrideConfigKey("quarkus.security.users.embedded.users.watcher", "watch-secret")
            .overrideConfigKey("quarkus.security.users.embedded.roles.watcher", "ratelimit-viewer")
            .overrideConfigKey("quarkus.security.users.embedded.users.intern", "intern-secret")
            .overrideConfigKey("quarkus.security.users.embedded.roles.intern", "user")
            .overrideConfigKey("quarkus.ratelimit.admin.enabled", "true")
            .overrideConfigKey(P + "api.limit", "3")
            .overrideConfigKey(P + "api.window", "1h")
            .overrideConfigKey(P + "api.key", "header:X-Api-Key")
            .overrideConfigKey(P + "api.overrides", "true")
            .overrideConfigKey(P + "api.plans.gold.limit", "30");

    @Path("/admin-test")
    public static class Api {
        @GET
        @RateLimit("api")
        public String get() {
            return "ok";
        }
    }

    @Inject
    RateLimiter limiter;

    @TestHTTPResource(value = "/", management = true)
    URL management;

    private RequestSpecification as(String user, String password) {
        RequestSpecification r = RestAssured.given().baseUri("http://" + management.getHost()).port(management.getPort());
        return user == null ? r : r.auth().preemptive().basic(user, password);
    }

    private RequestSpecification ops() {
        return as("ops", "ops-secret");
    }

    private static Response call(String apiKey) {
        return RestAssured.given().header("X-Api-Key", apiKey).get("/admin-test");
    }

    @Test
    void policiesAreListedWithTheirValues() {
        Response r = as("watcher", "watch-secret").get("/q/ratelimit/policies");
        assertEquals(200, r.statusCode(), r.asString());
        assertEquals("api", r.jsonPath().getString("policies[0].name"));
        assertEquals(3, r.jsonPath().getInt("policies[0].limit"));
        assertEquals("PT1H", r.jsonPath().getString("policies[0].window"));
        assertEquals("header:X-Api-Key", r.jsonPath().getString("policies[0].key"));
        assertEquals(30, r.jsonPath().getInt("policies[0].plans.gold.limit"));
    }

    @Test
    void aKeysStateIsReadWithoutChargingAndResetByTheWriteRole() {
        String customer = "acme-" + UUID.randomUUID();
        assertEquals(200, call(customer).statusCode());
        assertEquals(200, call(customer).statusCode());
        String path = "/q/ratelimit/policies/api/keys/" + customer;
        for (int i = 0; i < 3; i++) {
            Response state = as("watcher", "watch-secret").get(path);
            assertEquals(200, state.statusCode(), state.asString());
            assertEquals(1, state.jsonPath().getInt("remaining"), "a read charges nothing: " + state.asString());
            assertEquals("hdr=" + customer, state.jsonPath().getString("identity"));
        }
        assertEquals(403, as("watcher", "watch-secret").delete(path).statusCode(), "reading is not resetting");
        Response reset = ops().delete(path);
        assertEquals(200, reset.statusCode(), reset.asString());
        assertEquals(3, reset.jsonPath().getInt("remaining"));
        assertTrue(reset.jsonPath().getBoolean("reset"));
        assertEquals(3, limiter.stateBlocking("api", "hdr=" + customer).remaining(), "the key is idle again in Redis");
    }

    @Test
    void anOverrideIsSetReadAndCleared() {
        String customer = "globex-" + UUID.randomUUID();
        String path = "/q/ratelimit/policies/api/keys/" + customer;
        Response set = ops().contentType("application/json").body("{\"limit\": 600, \"expiresAfter\": \"P30D\"}")
                .put(path + "/override");
        assertEquals(200, set.statusCode(), set.asString());
        Response state = ops().get(path);
        assertEquals(600, state.jsonPath().getInt("limit"), state.asString());
        assertEquals(600, state.jsonPath().getInt("override.limit"), state.asString());
        Response bad = ops().contentType("application/json").body("{\"limit\": 0}").put(path + "/override");
        assertEquals(400, bad.statusCode(), bad.asString());
        assertTrue(bad.jsonPath().getString("error").contains("limit"), bad.asString());
        assertEquals(200, ops().delete(path + "/override").statusCode());
        assertEquals(3, ops().get(path).jsonPath().getInt("limit"));
    }

    @Test
    void theKeysDeniedMostLatelyAreListed() {
        String flooder = "flood-" + UUID.randomUUID();
        for (int i = 0; i < 10; i++) {
            call(flooder);
        }
        String other = "other-" + UUID.randomUUID();
        for (int i = 0; i < 5; i++) {
            call(other);
        }
        Response r = as("watcher", "watch-secret").get("/q/ratelimit/policies/api/limited");
        assertEquals(200, r.statusCode(), r.asString());
        List<String> identities = r.jsonPath().getList("keys.identity");
        List<Integer> denials = r.jsonPath().getList("keys.denials");
        int f = identities.indexOf("hdr=" + flooder);
        int o = identities.indexOf("hdr=" + other);
        assertTrue(f >= 0 && o > f, () -> "the flooder first: " + r.asString());
        assertTrue(denials.get(f) >= 7, r.asString()); // 7 denied (the deny cache answers some: counted all the same)
        assertEquals(2, denials.get(o), r.asString());
    }

    @Test
    void withoutCredentialsOrRoleNothingIsAnswered() {
        Response anonymous = as(null, null).get("/q/ratelimit/policies");
        assertEquals(401, anonymous.statusCode());
        assertTrue(anonymous.header("WWW-Authenticate").startsWith("Basic"), anonymous.headers().toString());
        Response noRole = as("intern", "intern-secret").get("/q/ratelimit/policies");
        assertEquals(403, noRole.statusCode());
        assertTrue(noRole.jsonPath().getString("error").contains("ratelimit-viewer"), noRole.asString());
        assertEquals(403, as("intern", "intern-secret").delete("/q/ratelimit/policies/api/keys/x").statusCode());
        Response unknown = ops().get("/q/ratelimit/policies/nope/keys/x");
        assertEquals(404, unknown.statusCode());
        assertTrue(unknown.jsonPath().getString("error").contains("api"), unknown.asString());
        assertFalse(ops().get("/q/ratelimit/policies/api/keys/x").asString().contains("Exception"));
    }
}
