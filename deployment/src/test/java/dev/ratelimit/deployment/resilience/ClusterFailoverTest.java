package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

import jakarta.inject.Inject;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.test.redis.RedisClusterFixture.Node;
import dev.ratelimit.test.redis.RedisClusterFixture;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Kills a Redis Cluster primary under traffic: decisions continue through the failure mode until a replica is
 * promoted, then come from Redis again (the promoted replica has no scripts: NOSCRIPT, then EVAL); keys on the
 * healthy primaries never admit more than their limit.
 * <p>
 * What the Quarkus 3.34 cluster client (Vert.x Redis 4.5) does: every command opens a cluster connection to every
 * node of the topology it knows, and fails if any of them is unreachable. So while one primary is down and the
 * topology still lists it, every command fails, whatever its key: a primary failure is a whole-backend outage until
 * the promotion plus one topology refresh ({@code quarkus.redis.topology-cache-ttl}, 1 s). The policy is
 * {@code fail-closed} so that what healthy keys admit is what Redis admits, which must stay within the limit.
 */
class ClusterFailoverTest {

    private static final Logger LOG = Logger.getLogger(ClusterFailoverTest.class);

    static final int LIMIT = 30;
    static final int IDENTITIES = 24;
    static final int THREADS = 8;

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OwnRedis.class, Load.class))
            .overrideConfigKey("quarkus.redis.hosts", healthyCluster().seedUris())
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.policies.api.algorithm", "sliding-window-log")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", Integer.toString(LIMIT))
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.api.on-failure", "fail-closed")
            .overrideConfigKey("quarkus.ratelimit.circuit-breaker.open-duration", "1s")
            // exhausted keys would otherwise be denied from the deny cache for the whole test, without Redis calls
            .overrideConfigKey("quarkus.ratelimit.deny-cache.enabled", "false");

    @Inject
    DefaultRateLimiter limiter;

    private static RedisClusterFixture healthyCluster() {
        RedisClusterFixture cluster = RedisClusterFixture.shared();
        cluster.ensureHealthy();
        return cluster;
    }

    @AfterAll
    static void heal() {
        RedisClusterFixture.shared().ensureHealthy();
    }

    /** Phases as seen at the start and the end of a call; a call spanning two counts as in transition. */
    static final int BEFORE = 0, FAILOVER = 1, AFTER = 2, TRANSITION = 3;

    @Test
    void decisionsContinueThroughAFailover() throws Exception {
        RedisClusterFixture cluster = RedisClusterFixture.shared();
        cluster.flushAll();
        String[] ids = new String[IDENTITIES];
        Node[] owners = new Node[IDENTITIES];
        for (int i = 0; i < IDENTITIES; i++) {
            ids[i] = "user" + i;
            owners[i] = cluster.primaryForKey(RedisKeys.key("rl", "api", ids[i]));
        }
        Node victim = owners[0];
        List<Integer> victimIds = new ArrayList<>();
        List<Integer> healthyIds = new ArrayList<>();
        for (int i = 0; i < IDENTITIES; i++) {
            (owners[i].equals(victim) ? victimIds : healthyIds).add(i);
        }
        assertTrue(healthyIds.size() >= 4 && victimIds.size() >= 2, "identities spread over the primaries");

        AtomicIntegerArray admitted = new AtomicIntegerArray(IDENTITIES);
        AtomicIntegerArray admittedByRedis = new AtomicIntegerArray(IDENTITIES);
        AtomicIntegerArray notFromRedisOrCache = new AtomicIntegerArray(IDENTITIES);
        AtomicInteger failoverDecisions = new AtomicInteger();
        AtomicInteger failoverFallbacks = new AtomicInteger();
        AtomicInteger failoverByPromoted = new AtomicInteger();
        AtomicLongArray firstRedisAfter = new AtomicLongArray(IDENTITIES);
        AtomicInteger phase = new AtomicInteger(BEFORE);
        Load load = Load.start("cluster", THREADS, 500, (thread, i) -> {
            int id = (thread * 7 + i) % IDENTITIES;
            int before = phase.get();
            RateLimitDecision d = limiter.checkBlocking("api", ids[id], 1);
            int p = phase.get() == before ? before : TRANSITION;
            if (d.allowed()) {
                admitted.incrementAndGet(id);
                if (d.source() == Source.REDIS) {
                    admittedByRedis.incrementAndGet(id);
                }
            }
            if (d.source() != Source.REDIS && d.source() != Source.DENY_CACHE) {
                notFromRedisOrCache.incrementAndGet(id);
            }
            if (p == FAILOVER && owners[id].equals(victim)) {
                failoverDecisions.incrementAndGet();
                if (d.source() == Source.FAILED_CLOSED) {
                    failoverFallbacks.incrementAndGet();
                } else if (d.source() == Source.REDIS) {
                    // the replica is promoted before every node reports cluster_state:ok, which ends this phase
                    failoverByPromoted.incrementAndGet();
                }
            }
            if (p == AFTER && d.source() == Source.REDIS) {
                firstRedisAfter.compareAndSet(id, 0, System.nanoTime());
            }
        });
        long promotedAt;
        Node promoted;
        Node killed;
        try {
            Load.sleep(1000);
            // replicas may hold the scripts from earlier tests sharing this cluster: make sure the one promoted
            // does not, so the executor must go through NOSCRIPT and EVAL there
            for (Node replica : cluster.replicas()) {
                try (RespClient client = replica.client()) {
                    client.call("SCRIPT", "FLUSH");
                }
            }
            phase.set(TRANSITION);
            killed = cluster.killPrimary(RedisClusterFixture.slot(RedisKeys.key("rl", "api", ids[victimIds.get(0)])));
            phase.set(FAILOVER);
            long killedAt = System.nanoTime();
            promoted = cluster.awaitFailover(killed);
            phase.set(AFTER);
            promotedAt = System.nanoTime();
            LOG.infof("Failover of %s to %s took %d ms", killed, promoted, (promotedAt - killedAt) / 1_000_000);
            long deadline = promotedAt + 10_000_000_000L;
            while (System.nanoTime() < deadline && !allDecidedByRedis(firstRedisAfter, victimIds)) {
                Load.sleep(20);
            }
            Load.sleep(200);
        } finally {
            load.stop();
        }
        long[] recoveryMs = new long[victimIds.size()];
        for (int j = 0; j < victimIds.size(); j++) {
            long t = firstRedisAfter.get(victimIds.get(j));
            recoveryMs[j] = t == 0 ? -1 : (t - promotedAt) / 1_000_000;
        }
        long promotedEvals;
        try (RespClient client = promoted.client()) {
            promotedEvals = OwnRedis.calls(client, "eval");
        }
        LOG.infof("Cluster failover: %d decisions on the dead primary's keys during the failover (%d by the failure "
                + "mode); Redis decided them again %s ms after the promotion; %d EVAL on the promoted replica; "
                + "admitted per identity %s; not from Redis per identity %s", failoverDecisions.get(),
                failoverFallbacks.get(), java.util.Arrays.toString(recoveryMs), promotedEvals, admitted,
                notFromRedisOrCache);

        assertTrue(load.errors().isEmpty(), () -> "calls failed: " + load.errors());
        assertNotEquals(killed, promoted);
        assertTrue(failoverDecisions.get() > 0, "traffic continued on the dead primary's keys during the failover");
        assertTrue(failoverFallbacks.get() > 0, "the failure mode (fail-closed) decided during the failover");
        assertEquals(failoverDecisions.get(), failoverFallbacks.get() + failoverByPromoted.get(),
                "during the failover the dead primary's keys were decided by the failure mode, or by Redis once the"
                        + " replica was promoted, and by nothing else");
        assertTrue(promotedEvals > 0, "the promoted replica had no scripts: EVAL after NOSCRIPT");
        for (int j = 0; j < victimIds.size(); j++) {
            assertTrue(recoveryMs[j] >= 0 && recoveryMs[j] < 5000,
                    "identity " + ids[victimIds.get(j)] + " decided by Redis again after the promotion: " + recoveryMs[j]);
        }
        for (int id : healthyIds) {
            assertTrue(admitted.get(id) <= LIMIT, ids[id] + " on a healthy primary admitted " + admitted.get(id));
            assertEquals(LIMIT, admittedByRedis.get(id), ids[id] + ": the load exhausts it, in Redis");
        }
    }

    private static boolean allDecidedByRedis(AtomicLongArray firstRedisAfter, List<Integer> ids) {
        for (int id : ids) {
            if (firstRedisAfter.get(id) == 0) {
                return false;
            }
        }
        return true;
    }
}
