package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisClusterFixture;
import dev.ratelimit.test.redis.RedisClusterFixture.Node;
import dev.ratelimit.test.redis.RespClient;

/**
 * A Redis Cluster losing the primary that holds a client's key, as it happens in production: the packaged application
 * runs as a process of its own under light load, the primary is killed, a replica takes over, and the old primary
 * comes back as a replica. Decisions must go back to Redis within the breaker's probe interval plus one second of the
 * cluster serving the slot again, and stay there when the old node rejoins.
 */
class ClusterFailoverProcessIT {

    private static final Duration PROBE_INTERVAL = Duration.ofSeconds(5);
    private static final String PREFIX = "failover-" + System.nanoTime();
    private static RedisClusterFixture cluster;
    private static AppProcess app;

    @BeforeAll
    static void start() throws Exception {
        cluster = RedisClusterFixture.startEmbedded();
        app = AppProcess.start(Map.of(
                "QUARKUS_REDIS_HOSTS", cluster.seedUris(),
                "QUARKUS_REDIS_CLIENT_TYPE", "cluster",
                "QUARKUS_RATELIMIT_KEY_PREFIX", PREFIX,
                "QUARKUS_RATELIMIT_ON_FAILURE", "fail-closed",
                "QUARKUS_RATELIMIT_FAIL_CLOSED_STATUS", "503",
                // a key that lives long enough to be found (a bucket this fast expires within a millisecond)
                "QUARKUS_RATELIMIT_POLICIES_API_ALGORITHM", "sliding-window-counter",
                "QUARKUS_RATELIMIT_POLICIES_API_WINDOW", "1h",
                "QUARKUS_RATELIMIT_POLICIES_API_LIMIT", "1000000"),
                Files.createTempDirectory("ratelimit-cluster"), Map.of());
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void decisionsReturnToRedisWithinTheProbeIntervalOfAFailover() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest orders = HttpRequest.newBuilder(URI.create(app.url("/orders"))).timeout(Duration.ofSeconds(5)).build();
        assertEquals(200, http.send(orders, HttpResponse.BodyHandlers.discarding()).statusCode());
        String key = keyOfThisClient();
        Node killed = cluster.killPrimary(RedisClusterFixture.slot(key));
        long killedAt = System.nanoTime();
        // a request while the slot has no primary: the failure mode decides
        assertEquals(503, http.send(orders, HttpResponse.BodyHandlers.discarding()).statusCode());
        cluster.awaitFailover(killed);
        long failedOverAt = System.nanoTime();
        long backAfter = -1;
        while (System.nanoTime() - failedOverAt < Duration.ofSeconds(30).toNanos()) {
            int status = http.send(orders, HttpResponse.BodyHandlers.discarding()).statusCode();
            if (status == 200) {
                backAfter = (System.nanoTime() - failedOverAt) / 1_000_000;
                break;
            }
            AppProcess.sleep(50);
        }
        System.out.printf("Cluster failover: %d ms from the kill to a promoted replica; decisions back in Redis %d ms "
                + "later (probe interval %d ms)%n", (failedOverAt - killedAt) / 1_000_000, backAfter,
                PROBE_INTERVAL.toMillis());
        long back = backAfter;
        assertTrue(back >= 0 && back <= PROBE_INTERVAL.toMillis() + 1_000,
                () -> "decisions back in Redis " + back + " ms after the failover\n" + app.log());
        cluster.restartNode(killed);
        for (int i = 0; i < 20; i++) {
            assertEquals(200, http.send(orders, HttpResponse.BodyHandlers.discarding()).statusCode(),
                    "after the old primary rejoined as a replica");
            AppProcess.sleep(25);
        }
    }

    /** The key the application wrote for this client's first request, found on the primaries. */
    private static String keyOfThisClient() {
        for (Node node : cluster.primaries()) {
            try (RespClient client = node.client()) {
                List<?> keys = (List<?>) client.call("KEYS", PREFIX + ":*");
                if (!keys.isEmpty()) {
                    return (String) keys.get(0);
                }
            }
        }
        assertNotNull(null, "no key written by the first request");
        return null;
    }
}
