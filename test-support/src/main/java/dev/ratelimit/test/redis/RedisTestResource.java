package dev.ratelimit.test.redis;

import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Points a Quarkus test application at {@link RedisFixture#shared()}: one server for the whole JVM, reused by every
 * test class; keys are flushed when each test class starts so classes do not see each other's data.
 * Dev Services for Redis is switched off so Quarkus never looks for Docker.
 */
public class RedisTestResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        RedisFixture redis = RedisFixture.shared();
        redis.ensureRunning(); // a resilience test may have left the embedded server killed
        redis.flushAll();
        return Map.of(
                "quarkus.redis.hosts", redis.uri(),
                "quarkus.redis.devservices.enabled", "false");
    }

    @Override
    public void stop() {
        // nothing: the shared server lives until JVM exit
    }
}
