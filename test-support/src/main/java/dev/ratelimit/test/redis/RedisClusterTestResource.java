package dev.ratelimit.test.redis;

import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Points a Quarkus test application at {@link RedisClusterFixture#shared()} (3 primaries + 3 replicas), as a Redis
 * Cluster client with all six nodes as seeds. The cluster is healed (killed nodes restarted) and flushed when each
 * test class starts; it lives until JVM exit.
 */
public class RedisClusterTestResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        RedisClusterFixture cluster = RedisClusterFixture.shared();
        cluster.ensureHealthy();
        cluster.flushAll();
        return Map.of(
                "quarkus.redis.hosts", cluster.seedUris(),
                "quarkus.redis.client-type", "cluster",
                "quarkus.redis.devservices.enabled", "false");
    }

    @Override
    public void stop() {
        // nothing: the shared cluster lives until JVM exit
    }
}
