package dev.ratelimit.deployment.health;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.deployment.resilience.OwnRedis;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.quarkus.test.QuarkusUnitTest;

/**
 * With {@code quarkus.ratelimit.health.down-on-outage=true} a Redis outage makes the application not ready (503,
 * DOWN), and ready again once Redis is back on the same port.
 */
class ReadinessDownOnOutageTest {

    static final RedisServerProcess REDIS = OwnRedis.of(ReadinessDownOnOutageTest.class);

    @RegisterExtension
    static final QuarkusUnitTest TEST = Readiness.on(REDIS)
            .overrideConfigKey("quarkus.ratelimit.on-failure", "fail-closed")
            .overrideConfigKey("quarkus.ratelimit.health.down-on-outage", "true");

    @AfterAll
    static void stop() {
        REDIS.stop();
    }

    @Test
    void downWhileRedisIsDownAndUpWhenItIsBack() throws Exception {
        assertEquals("UP", Readiness.now().state());
        REDIS.kill();
        Readiness.Seen down = Readiness.awaitRedis("unreachable");
        assertEquals("DOWN", down.state(), down::toString);
        assertEquals(503, down.status());
        assertEquals("failure modes (default on-failure: fail-closed)", down.data().get("deciding"));
        REDIS.start();
        Readiness.Seen back = Readiness.awaitRedis("reachable");
        assertEquals("UP", back.state(), back::toString);
        assertEquals(200, back.status());
    }
}
