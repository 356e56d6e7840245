package dev.ratelimit.test.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** Proves that {@link RedisClusterFixture} is a real Redis Cluster: slot routing, MOVED, and replica promotion. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterFixtureTest {

    private static final Logger LOG = Logger.getLogger(RedisClusterFixtureTest.class);
    private static final String INCR = "return redis.call('INCR', KEYS[1])";

    private static RedisClusterFixture cluster;

    @BeforeAll
    static void startCluster() {
        long started = System.nanoTime();
        cluster = RedisClusterFixture.shared();
        cluster.ensureHealthy();
        cluster.flushAll();
        LOG.infof("RedisClusterFixtureTest uses %s cluster, Redis %s, primaries %s (%d ms)",
                cluster.canKill() ? "EMBEDDED" : "EXTERNAL", cluster.serverVersion(), cluster.primaries(),
                (System.nanoTime() - started) / 1_000_000);
    }

    @Test
    @Order(1)
    void slotMatchesClusterKeyslot() {
        List<String> keys = List.of("", "a", "foo", "rate:user:42", "{user1000}.following", "{user1000}.followers",
                "foo{}{bar}", "foo{{bar}}zap", "foo{bar}{zap}", "{", "}", "{}", "ключ-ünïcode", "123456789");
        try (RespClient client = cluster.nodes().get(0).client()) {
            for (String key : keys) {
                assertEquals(client.callLong("CLUSTER", "KEYSLOT", key), RedisClusterFixture.slot(key), key);
            }
        }
        assertEquals(0x31C3, RedisClusterFixture.slot("123456789")); // the CRC16/XMODEM check value, mod 16384
        assertEquals(RedisClusterFixture.slot("{user1000}.following"), RedisClusterFixture.slot("user1000"));
    }

    @Test
    @Order(2)
    void evalRunsOnTheOwnerOfEachKeysSlot() {
        List<RedisClusterFixture.Node> primaries = cluster.primaries();
        assertEquals(3, primaries.size());
        assertEquals(3, cluster.replicas().size());
        assertEquals(6, cluster.seedUris().split(",").length);

        Map<RedisClusterFixture.Node, Integer> keysPerPrimary = new HashMap<>();
        try (RespClient any = cluster.nodes().get(0).client()) {
            for (int i = 0; i < 100; i++) {
                String key = "cluster:spread:" + i;
                int slot = RedisClusterFixture.slot(key);
                assertEquals(any.callLong("CLUSTER", "KEYSLOT", key), slot, key);
                RedisClusterFixture.Node owner = cluster.primaryForSlot(slot);
                try (RespClient client = owner.client()) {
                    assertEquals(1L, client.call("EVAL", INCR, "1", key), key);
                    assertEquals(2L, client.call("EVAL", INCR, "1", key), key);
                }
                keysPerPrimary.merge(owner, 1, Integer::sum);
            }
        }
        assertEquals(new HashSet<>(primaries), keysPerPrimary.keySet(), "keys spread over all three primaries");
        LOG.debugf("Keys per primary: %s", keysPerPrimary);

        // a node that does not own the slot redirects instead of answering: this is really a cluster
        String key = "cluster:spread:0";
        RedisClusterFixture.Node owner = cluster.primaryForKey(key);
        RedisClusterFixture.Node other = primaries.stream().filter(p -> !p.equals(owner)).findFirst().orElseThrow();
        try (RespClient client = other.client()) {
            RespException moved = assertThrows(RespException.class, () -> client.call("EVAL", INCR, "1", key));
            assertEquals("MOVED", moved.code());
            assertEquals("MOVED " + RedisClusterFixture.slot(key) + " " + owner.address(), moved.getMessage());
        }
    }

    @Test
    @Order(3)
    void killedPrimaryIsReplacedByItsReplica() {
        assumeTrue(cluster.canKill(), "an external cluster cannot be killed");
        String key = "cluster:failover:{rate}";
        int slot = RedisClusterFixture.slot(key);
        RedisClusterFixture.Node oldPrimary = cluster.primaryForSlot(slot);
        try (RespClient client = oldPrimary.client()) {
            assertEquals(1L, client.call("EVAL", INCR, "1", key));
            // make sure the replica has the write before the crash
            assertEquals(1L, client.call("WAIT", "1", "2000"));
        }

        long started = System.nanoTime();
        RedisClusterFixture.Node killed = cluster.killPrimary(slot);
        assertEquals(oldPrimary, killed);
        assertFalse(killed.isAlive());
        RedisClusterFixture.Node promoted;
        try {
            promoted = cluster.awaitFailover(killed);
            long failoverMillis = (System.nanoTime() - started) / 1_000_000;
            assertNotNull(promoted);
            assertNotEquals(killed, promoted);
            assertEquals(promoted, cluster.primaryForSlot(slot));
            Set<RedisClusterFixture.Node> primaries = new HashSet<>(cluster.primaries());
            assertEquals(3, primaries.size());
            assertFalse(primaries.contains(killed));
            try (RespClient client = promoted.client()) {
                assertEquals(2L, client.call("EVAL", INCR, "1", key), "the replicated value survived the failover");
                String role = RedisFixture.infoField(client.callString("INFO", "replication"), "role");
                assertEquals("master", role);
            }
            LOG.infof("Failover of %s to %s took %d ms", killed, promoted, failoverMillis);
        } finally {
            long restartStarted = System.nanoTime();
            cluster.restartNode(killed);
            LOG.infof("%s rejoined as replica in %d ms", killed, (System.nanoTime() - restartStarted) / 1_000_000);
        }
        try (RespClient client = killed.client()) {
            String replication = client.callString("INFO", "replication");
            assertEquals("slave", RedisFixture.infoField(replication, "role"));
            assertEquals(String.valueOf(promoted.port()), RedisFixture.infoField(replication, "master_port"));
        }
        assertTrue(cluster.replicas().contains(killed));
        cluster.ensureHealthy();
    }

    @Test
    @Order(4)
    void testResourceGivesClusterConfig() {
        Map<String, String> config = new RedisClusterTestResource().start();
        assertEquals(cluster.seedUris(), config.get("quarkus.redis.hosts"));
        assertEquals("cluster", config.get("quarkus.redis.client-type"));
        assertEquals("false", config.get("quarkus.redis.devservices.enabled"));
    }
}
