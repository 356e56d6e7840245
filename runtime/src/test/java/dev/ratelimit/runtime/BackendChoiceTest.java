package dev.ratelimit.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.ratelimit.runtime.config.RateLimitRuntimeConfig.Backend;
import io.quarkus.runtime.LaunchMode;

/**
 * The backend for every launch mode, configured backend and presence of a Redis (configured, or started by Dev
 * Services, which sets the hosts property): in process when configured so, or in dev and test mode without a Redis;
 * Redis otherwise, in production even without one (an outage the failure mode handles).
 */
class BackendChoiceTest {

    @Test
    void everyCombination() {
        for (LaunchMode mode : LaunchMode.values()) {
            for (boolean redis : new boolean[] { true, false }) {
                assertEquals(BackendChoice.LOCAL, BackendChoice.of(Backend.LOCAL, mode, redis), mode + " " + redis);
                BackendChoice expected = redis || mode == LaunchMode.NORMAL ? BackendChoice.REDIS
                        : BackendChoice.LOCAL_WITHOUT_REDIS;
                assertEquals(expected, BackendChoice.of(Backend.REDIS, mode, redis), mode + " " + redis);
            }
        }
    }

    @Test
    void theMessageNamesTheSessionAndWhatToSet() {
        String test = BackendChoice.withoutRedisMessage(LaunchMode.TEST, "quarkus.redis.cache.hosts");
        assertTrue(test.contains("for this test run"), test);
        assertTrue(test.contains("Set quarkus.redis.cache.hosts, or start a container runtime"), test);
        String dev = BackendChoice.withoutRedisMessage(LaunchMode.DEVELOPMENT, "quarkus.redis.hosts");
        assertTrue(dev.contains("for this dev-mode session"), dev);
    }
}
