package dev.ratelimit.benchmark;

import java.util.ArrayList;
import java.util.List;

import org.jboss.logging.Logger;

import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.test.redis.RespClient;

/**
 * A Redis Cluster of three primaries and no replica on 127.0.0.1, started by the limiter suite for its {@code cluster:}
 * rows: each node a {@link RedisServerProcess} of the same binary and settings as the one Redis of the other rows
 * (persistence off) with {@code cluster-enabled}, the slots split in three equal ranges. No replica: on the benchmark's
 * two cores a replica would take CPU for replication that the one Redis does not pay, and the comparison is of the
 * cluster client's path (a run holds one slot's calls), not of failover. (The tests' {@code RedisClusterFixture}
 * always adds three replicas for its failover tests.)
 */
final class BenchCluster implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(BenchCluster.class);

    /** The slots of each primary: 0-5460, 5461-10922, 10923-16383. */
    private static final int[][] SLOTS = { { 0, 5460 }, { 5461, 10922 }, { 10923, 16383 } };
    private static final long FORM_TIMEOUT_MILLIS = 30_000;

    private final List<RedisServerProcess> nodes = new ArrayList<>();
    /** One admin connection per node, for {@code FLUSHALL}, {@code INFO cpu} and {@code INFO commandstats}. */
    private final List<RespClient> admins = new ArrayList<>();

    private BenchCluster() {
    }

    /** Starts the three nodes and forms the cluster; waits until every node says {@code cluster_state:ok}. */
    static BenchCluster start() {
        long started = System.nanoTime();
        BenchCluster cluster = new BenchCluster();
        try {
            cluster.form();
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        LOG.infof("Redis Cluster of %d primaries, no replica: %s (formed in %d ms)", SLOTS.length,
                String.join(",", cluster.seeds()), (System.nanoTime() - started) / 1_000_000);
        return cluster;
    }

    private void form() {
        // a node's bus port is given: the default, port + 10000, overflows for high ephemeral ports
        int[] ports = RedisServerProcess.freePorts(2 * SLOTS.length);
        for (int i = 0; i < SLOTS.length; i++) {
            RedisServerProcess node = new RedisServerProcess(ports[i],
                    "--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes-" + ports[i] + ".conf",
                    "--cluster-port", Integer.toString(ports[SLOTS.length + i]),
                    "--cluster-announce-ip", RedisServerProcess.HOST);
            nodes.add(node);
            node.start();
            RespClient admin = node.client();
            admins.add(admin);
            // distinct epochs up front, so the nodes need not settle a collision between them
            admin.call("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
            admin.call("CLUSTER", "ADDSLOTSRANGE", Integer.toString(SLOTS[i][0]), Integer.toString(SLOTS[i][1]));
        }
        for (int i = 0; i < nodes.size(); i++) {
            for (int j = i + 1; j < nodes.size(); j++) {
                admins.get(i).call("CLUSTER", "MEET", RedisServerProcess.HOST, Integer.toString(ports[j]),
                        Integer.toString(ports[SLOTS.length + j]));
            }
        }
        long deadline = System.currentTimeMillis() + FORM_TIMEOUT_MILLIS;
        String problem;
        while ((problem = problem()) != null) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("The benchmark's Redis Cluster did not form in "
                        + FORM_TIMEOUT_MILLIS / 1000 + " s: " + problem);
            }
            ClosedLoop.sleep(50);
        }
    }

    /** Null when every node sees the cluster ok, all three nodes and every slot served; else what is not yet. */
    private String problem() {
        for (int i = 0; i < admins.size(); i++) {
            String info = admins.get(i).callString("CLUSTER", "INFO");
            for (String expected : List.of("cluster_state:ok", "cluster_known_nodes:" + SLOTS.length,
                    "cluster_slots_ok:16384")) {
                if (!info.contains(expected)) {
                    return "node " + nodes.get(i).uri() + " lacks " + expected;
                }
            }
        }
        return null;
    }

    /** The nodes' URIs, {@code redis://127.0.0.1:<port>}: the cluster client's seeds. */
    List<String> seeds() {
        return nodes.stream().map(RedisServerProcess::uri).toList();
    }

    /** An admin connection to each node. */
    List<RespClient> admins() {
        return admins;
    }

    @Override
    public void close() {
        for (RespClient admin : admins) {
            try {
                admin.close();
            } catch (RuntimeException e) {
                // stopping anyway
            }
        }
        for (RedisServerProcess node : nodes) {
            node.stop();
        }
    }
}
