package dev.ratelimit.deployment.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.deployment.resilience.OwnRedis;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.quarkus.test.QuarkusUnitTest;

/**
 * With SmallRye Health, {@code /q/health/ready} carries the rate limiter's check: backend, Redis reachable, the
 * breaker's state. By default an outage is reported, not failed: the check stays UP and says what decides meanwhile,
 * and it is back to reachable once Redis is restarted on the same port. (The Quarkus Redis client adds a readiness
 * check of its own, which does fail during an outage: it is turned off here, as the documentation advises for
 * applications that keep serving on their failure mode.)
 */
class ReadinessReportsAnOutageTest {

    static final RedisServerProcess REDIS = OwnRedis.of(ReadinessReportsAnOutageTest.class);

    @RegisterExtension
    static final QuarkusUnitTest TEST = Readiness.on(REDIS)
            .overrideConfigKey("quarkus.redis.health.enabled", "false");

    @AfterAll
    static void stop() {
        REDIS.stop();
    }

    @Test
    void upWithRedisUpWhileItIsDownAndReachableAgainAfterARestart() throws Exception {
        Readiness.Seen up = Readiness.now();
        assertEquals(200, up.status());
        assertEquals("UP", up.state());
        assertEquals("redis", up.data().get("backend"));
        assertEquals("reachable", up.data().get("redis"));
        assertEquals("closed", up.data().get("circuit-breaker"));

        REDIS.kill();
        Readiness.Seen down = Readiness.awaitRedis("unreachable");
        assertTrue(String.valueOf(down.data().get("redis")).startsWith("unreachable"), down::toString);
        // the endpoint is often public: the kind of failure, never the Redis address or the failure's message
        String said = down.toString();
        assertFalse(said.contains(Integer.toString(REDIS.port())) || said.contains("127.0.0.1") || said.contains("localhost"),
                () -> "the readiness check shows where Redis is: " + said);
        assertEquals("UP", down.state(), "an outage is reported, not failed, by default");
        assertEquals(200, down.status());
        assertEquals("failure modes (default on-failure: local)", down.data().get("deciding"));

        REDIS.start();
        Readiness.Seen back = Readiness.awaitRedis("reachable");
        assertEquals("reachable", back.data().get("redis"), back::toString);
        assertEquals("UP", back.state());
    }
}
