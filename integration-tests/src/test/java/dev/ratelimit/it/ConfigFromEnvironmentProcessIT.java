package dev.ratelimit.it;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisFixture;

/**
 * The packaged application configured the way deployments configure it: environment variables in both of their
 * forms (QUARKUS_RATELIMIT_POLICIES_API_LIMIT for a plain name, QUARKUS_RATELIMIT_POLICIES__PARTNER__LIMIT for a
 * quoted one) overriding application.properties, a policy defined by environment variables alone, a {@code .env} file,
 * a profile's value, and plans' values (one overriding a property, one plan defined by an environment variable alone).
 * Each value is seen over HTTP in the limit a policy applies.
 */
class ConfigFromEnvironmentProcessIT {

    private static AppProcess app;
    private static Path workDir;

    @BeforeAll
    static void start() throws IOException {
        workDir = Files.createTempDirectory("ratelimit-env");
        // a name with a dash: the environment variable's underscores are matched to the property SmallRye knows
        Files.writeString(workDir.resolve(".env"), "QUARKUS_RATELIMIT_POLICIES_PER_USER_LIMIT=1\n");
        app = AppProcess.start(Map.of(
                "QUARKUS_REDIS_HOSTS", RedisFixture.shared().uri(),
                "QUARKUS_RATELIMIT_KEY_PREFIX", "env-" + System.nanoTime(),
                "QUARKUS_RATELIMIT_POLICIES_API_LIMIT", "2",
                "QUARKUS_RATELIMIT_POLICIES__PARTNER__LIMIT", "3",
                "QUARKUS_RATELIMIT_POLICIES__ENV_ONLY__PATHS", "/public/*",
                "QUARKUS_RATELIMIT_POLICIES__ENV_ONLY__LIMIT", "1",
                "QUARKUS_RATELIMIT_POLICIES__ENV_ONLY__WINDOW", "1m",
                "QUARKUS_RATELIMIT_POLICIES_PER_USER_PLANS_PREMIUM_LIMIT", "4",
                "QUARKUS_RATELIMIT_POLICIES__PARTNER__PLANS__PREMIUM__LIMIT", "6"),
                workDir, Map.of("quarkus.profile", "prod,staging", "%staging.quarkus.ratelimit.policies.writes.limit", "7"));
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void plainEnvironmentVariableOverridesAPlainProperty() {
        given().get(app.url("/orders")).then().statusCode(200).header("X-RateLimit-Limit", "2");
        given().get(app.url("/orders")).then().statusCode(200);
        given().get(app.url("/orders")).then().statusCode(429);
    }

    @Test
    void quotedEnvironmentVariableOverridesAPlainProperty() {
        given().get(app.url("/partner")).then().statusCode(200).header("X-RateLimit-Limit", "3");
    }

    @Test
    void policyDefinedByEnvironmentVariablesAloneApplies() {
        given().get(app.url("/public/env-a")).then().statusCode(200);
        given().get(app.url("/public/env-b")).then().statusCode(429);
    }

    @Test
    void dotEnvFileCounts() {
        given().auth().preemptive().basic("alice", "alice-secret").get(app.url("/account")).then().statusCode(200)
                .header("X-RateLimit-Limit", "1");
    }

    @Test
    void environmentVariableOverridesAPlansProperty() {
        // carol is on the premium plan of per-user (10 in application.properties)
        given().auth().preemptive().basic("carol", "carol-secret").get(app.url("/account")).then().statusCode(200)
                .header("X-RateLimit-Limit", "4");
    }

    @Test
    void planDefinedByAnEnvironmentVariableAloneApplies() {
        given().auth().preemptive().basic("carol", "carol-secret").get(app.url("/partner")).then().statusCode(200)
                .header("X-RateLimit-Limit", "6");
    }

    @Test
    void activeProfileValueCounts() {
        given().contentType("application/json").body("{\"item\":\"x\"}").post(app.url("/orders")).then()
                .header("RateLimit-Policy", org.hamcrest.Matchers.containsString("\"writes\";q=7"));
    }

    @Test
    void aCleanStartLogsNoWarning() {
        assertFalse(app.log().contains(" WARN "), app::log);
    }
}
