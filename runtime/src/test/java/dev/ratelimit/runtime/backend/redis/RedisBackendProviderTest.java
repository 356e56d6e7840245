package dev.ratelimit.runtime.backend.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.quarkus.runtime.LaunchMode;

/**
 * The Redis backend in every launch mode, with and without a Redis (configured, or started by Dev Services, which
 * sets the hosts property): in process in dev and test mode without one; Redis otherwise, in production even without
 * one (an outage the failure mode handles).
 */
class RedisBackendProviderTest {

    @Test
    void everyCombination() {
        for (LaunchMode mode : LaunchMode.values()) {
            for (boolean redis : new boolean[] { true, false }) {
                assertEquals(!redis && mode != LaunchMode.NORMAL, RedisBackendProvider.inProcessFor(mode, redis),
                        mode + " " + redis);
            }
        }
    }

    @Test
    void theMessageNamesTheSessionAndWhatToSet() {
        String test = RedisBackendProvider.withoutRedisMessage(LaunchMode.TEST, "quarkus.redis.cache.hosts");
        assertTrue(test.contains("for this test run"), test);
        assertTrue(test.contains("Set quarkus.redis.cache.hosts, or start a container runtime"), test);
        String dev = RedisBackendProvider.withoutRedisMessage(LaunchMode.DEVELOPMENT, "quarkus.redis.hosts");
        assertTrue(dev.contains("for this dev-mode session"), dev);
    }

    @Test
    void credentialsAreNotShown() {
        assertEquals("redis://localhost:6379", RedisBackendProvider.withoutCredentials("redis://localhost:6379"));
        assertEquals("redis://redis:6379/0", RedisBackendProvider.withoutCredentials("redis://:s3cret@redis:6379/0"));
        assertEquals("rediss://a:6380,redis://b:6379",
                RedisBackendProvider.withoutCredentials("rediss://user:p@ss@a:6380,redis://u:x@b:6379"));
    }
}
