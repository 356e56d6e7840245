package dev.ratelimit.deployment.devui;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.deployment.resilience.OwnRedis;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.quarkus.test.QuarkusDevModeTest;
import io.quarkus.test.common.http.TestHTTPResource;
import io.vertx.core.json.JsonObject;

/**
 * The live page during a Redis outage (a redis-server of this test alone, killed): the status says Redis does not
 * answer and the failure modes do, then that the circuit breaker opened; the decisions the local failure mode took
 * are counted as such; a lookup says the backend did not answer.
 */
class LiveDevUiOutageTest {

    static final RedisServerProcess REDIS = OwnRedis.of(LiveDevUiOutageTest.class);

    @RegisterExtension
    static final QuarkusDevModeTest TEST = LiveDevUiScenarios.application(String.join("\n",
            "quarkus.redis.hosts=" + REDIS.uri(),
            "quarkus.ratelimit.redis.timeout=300ms",
            "quarkus.ratelimit.circuit-breaker.failure-threshold=2",
            "quarkus.ratelimit.circuit-breaker.open-duration=1h"));

    @TestHTTPResource("/")
    URL application;

    @AfterAll
    static void stop() {
        REDIS.stop();
    }

    @Test
    void theOutageIsShownAndTheFallbackDecisionsCounted() throws Exception {
        try (DevUiJsonRpc devUi = DevUiJsonRpc.connect(application)) {
            JsonObject up = devUi.object("status", Map.of());
            assertTrue(up.getBoolean("redisReachable"), up::toString);
            assertEquals("closed", up.getString("circuitBreaker"), up::toString);
            assertFalse(up.getBoolean("failureModeAnswering"), up::toString);

            REDIS.kill();
            JsonObject down = devUi.object("status", Map.of());
            assertFalse(down.getBoolean("redisReachable"), down::toString);
            assertTrue(down.getBoolean("failureModeAnswering"), down::toString);
            assertTrue(down.getString("failureModeReason").startsWith("Redis does not answer"), down::toString);

            // failed calls open the breaker (once no call succeeded for a timeout); the local failure mode admits
            JsonObject open = down;
            for (int i = 0; i < 50 && !"open".equals(open.getString("circuitBreaker")); i++) {
                given().header("X-User", "dave").get(application.toURI().resolve("limited")).then().statusCode(200);
                open = devUi.object("status", Map.of());
            }
            assertEquals("open", open.getString("circuitBreaker"), open::toString);
            assertTrue(open.getString("failureModeReason").startsWith("The circuit breaker is open"), open::toString);

            JsonObject api = LiveDevUiScenarios.row(devUi.array("decisions"), "api");
            assertTrue(api.getLong("local-fallback") >= 1, api::toString);

            JsonObject lookup = devUi.object("lookup", Map.of("policy", "api", "key", "hdr=dave"));
            assertTrue(lookup.getString("error", "").startsWith("The rate-limit backend did not answer"),
                    lookup::toString);
        } finally {
            REDIS.start();
        }
    }
}
