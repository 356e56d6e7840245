package dev.ratelimit.test.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.jboss.logging.Logger;

/**
 * A real Redis Cluster for tests: 3 primaries (slots 0-5460, 5461-10922, 10923-16383) and 3 replicas, each a
 * {@link RedisServerProcess} on 127.0.0.1 with its own directory. {@link #shared()} starts one per JVM on first use;
 * it lives until JVM exit.
 * <p>
 * Instead of the embedded cluster, an existing one can be given with system property {@value #URL_PROPERTY} or env
 * {@value #URL_ENV} (comma-separated seed URIs); then {@link #canKill()} is false and the failover helpers refuse.
 * <p>
 * Nodes use {@code --cluster-node-timeout 1500} so that a killed primary is replaced within a few seconds, and
 * {@code --cluster-replica-validity-factor 0} so a replica always tries to take over however long it was out of touch.
 */
public final class RedisClusterFixture implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(RedisClusterFixture.class);

    public static final String URL_PROPERTY = "ratelimit.test.redis-cluster-url";
    public static final String URL_ENV = "RATELIMIT_TEST_REDIS_CLUSTER_URL";

    public static final int SLOTS = 16384;
    static final int NODE_TIMEOUT_MILLIS = 1500;
    static final long TIMEOUT_MILLIS = 30_000;

    private static final int[][] PRIMARY_RANGES = { { 0, 5460 }, { 5461, 10922 }, { 10923, 16383 } };

    private static final String SHARED_KEY = "ratelimit.test.internal.redis-cluster-shared";
    // interned literal: the same lock in every class loader (see RedisServerProcess.JVM_LOCK)
    private static final Object SHARED_LOCK = "dev.ratelimit.test.redis.shared-cluster-lock";

    private final List<Node> nodes;
    private final boolean external;
    private final boolean owned;

    private RedisClusterFixture(List<Node> nodes, boolean external, boolean owned) {
        this.nodes = List.copyOf(nodes);
        this.external = external;
        this.owned = owned;
    }

    /** The cluster shared by all tests of this JVM, started on first use (a few seconds). */
    public static RedisClusterFixture shared() {
        synchronized (SHARED_LOCK) {
            String url = System.getProperty(URL_PROPERTY, System.getenv(URL_ENV));
            String description = System.getProperty(SHARED_KEY);
            if (description != null) {
                return description.startsWith("EXTERNAL") ? external(url) : attach(description);
            }
            long started = System.nanoTime();
            RedisClusterFixture cluster;
            if (url != null && !url.isBlank()) {
                cluster = external(url);
                System.setProperty(SHARED_KEY, "EXTERNAL");
            } else {
                cluster = startEmbedded();
                System.setProperty(SHARED_KEY, cluster.nodes.stream()
                        .map(n -> Integer.toString(n.port())).collect(Collectors.joining(",")));
            }
            LOG.infof("Redis Cluster for tests: %s, redis_version %s, %d nodes %s (ready in %d ms)",
                    cluster.external ? "EXTERNAL" : "EMBEDDED", cluster.serverVersion(), cluster.nodes.size(),
                    cluster.seedUris(), (System.nanoTime() - started) / 1_000_000);
            return cluster;
        }
    }

    /** A private embedded cluster, not shared; {@link #close()} stops it. */
    public static RedisClusterFixture startEmbedded() {
        int[] ports = RedisServerProcess.freePorts(12);
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int port = ports[i];
            // explicit bus port: the default (port + 10000) overflows for ephemeral ports above 55535
            int busPort = ports[6 + i];
            nodes.add(new Node(new RedisServerProcess(port,
                    "--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes-" + port + ".conf",
                    "--cluster-node-timeout", Integer.toString(NODE_TIMEOUT_MILLIS),
                    "--cluster-replica-validity-factor", "0",
                    "--cluster-port", Integer.toString(busPort),
                    "--cluster-announce-ip", RedisServerProcess.HOST,
                    // the default 5 s wait for more replicas before a diskless full sync would dominate
                    // the start-up (and every rejoin) time
                    "--repl-diskless-sync-delay", "0")));
        }
        RedisClusterFixture cluster = new RedisClusterFixture(nodes, false, true);
        try {
            cluster.form(ports);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** All nodes given at start (primaries and replicas, alive or not). */
    public List<Node> nodes() {
        return nodes;
    }

    /** The current primaries serving slots, by first slot, as a live node sees them now (after failovers too). */
    public List<Node> primaries() {
        return view(anyLiveNode()).stream()
                .filter(v -> v.isMaster() && !v.isFailing() && !v.slots.isEmpty())
                .sorted(Comparator.comparingInt(v -> v.slots.get(0)[0]))
                .map(this::nodeFor)
                .collect(Collectors.toList());
    }

    /** The current replicas, as a live node sees them now. */
    public List<Node> replicas() {
        return view(anyLiveNode()).stream()
                .filter(v -> v.flags.contains("slave"))
                .map(this::nodeFor)
                .collect(Collectors.toList());
    }

    /** {@code redis://127.0.0.1:p1,redis://127.0.0.1:p2,...} of all nodes, for {@code quarkus.redis.hosts}. */
    public String seedUris() {
        return nodes.stream().map(Node::uri).collect(Collectors.joining(","));
    }

    /** The node that owns the slot now (as a live node sees it; during a failover that may still be a dead one). */
    public Node primaryForSlot(int slot) {
        for (NodeView v : view(anyLiveNode())) {
            if (v.isMaster() && v.owns(slot)) {
                return nodeFor(v);
            }
        }
        throw new IllegalStateException("No node owns slot " + slot);
    }

    public Node primaryForKey(String key) {
        return primaryForSlot(slot(key));
    }

    /** The cluster slot of a key: CRC16 (XMODEM) of the key, or of its non-empty {@code {hash tag}}, mod 16384. */
    public static int slot(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int open = -1;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '{') {
                open = i;
                break;
            }
        }
        if (open >= 0) {
            for (int j = open + 1; j < bytes.length; j++) {
                if (bytes[j] == '}') {
                    if (j > open + 1) { // "{}" is not a hash tag: the whole key is hashed
                        return crc16(bytes, open + 1, j) & (SLOTS - 1);
                    }
                    break;
                }
            }
        }
        return crc16(bytes, 0, bytes.length) & (SLOTS - 1);
    }

    /** False for an external cluster: its nodes cannot be killed or restarted from here. */
    public boolean canKill() {
        return !external;
    }

    /** Kills (SIGKILL) the primary owning the slot and returns it; follow with {@link #awaitFailover(Node)}. */
    public Node killPrimary(int slot) {
        requireKillable();
        Node primary = primaryForSlot(slot);
        primary.slotsAtKill = view(primary).stream().filter(NodeView::isMyself).findFirst()
                .map(v -> v.slots).orElse(List.of());
        LOG.debugf("Killing primary %s (slots %s)", primary, ranges(primary.slotsAtKill));
        primary.process.kill();
        return primary;
    }

    /**
     * Waits until the slots of the killed primary are served by a promoted replica, every surviving node agrees on
     * it, and {@code cluster_state:ok} on all of them. Returns the promoted node.
     */
    public Node awaitFailover(Node killed) {
        requireKillable();
        long started = System.nanoTime();
        int probe = killed.slotsAtKill != null && !killed.slotsAtKill.isEmpty() ? killed.slotsAtKill.get(0)[0] : -1;
        Node[] promoted = new Node[1];
        await("failover of " + killed, () -> {
            Node owner = null;
            for (Node node : nodes) {
                if (node.equals(killed) || !node.isAlive()) {
                    continue;
                }
                String state = clusterState(node);
                if (!"ok".equals(state)) {
                    return "cluster_state:" + state + " on " + node;
                }
                List<NodeView> view = view(node);
                for (NodeView v : view) {
                    if (v.address().equals(killed.address()) && !v.slots.isEmpty()) {
                        return node + " still sees " + killed + " owning " + ranges(v.slots);
                    }
                }
                if (probe >= 0) {
                    Node current = view.stream().filter(v -> v.isMaster() && v.owns(probe)).findFirst()
                            .map(this::nodeFor).orElse(null);
                    if (current == null || current.equals(killed)) {
                        return node + " sees no new owner of slot " + probe;
                    }
                    if (owner != null && !owner.equals(current)) {
                        return "nodes disagree on the owner of slot " + probe + ": " + owner + " / " + current;
                    }
                    owner = current;
                }
            }
            promoted[0] = owner;
            return null;
        });
        LOG.debugf("Failover of %s done in %d ms: promoted %s", killed, (System.nanoTime() - started) / 1_000_000,
                promoted[0]);
        return promoted[0];
    }

    /**
     * Starts a killed node again (same port, same directory and node id) and waits until it has rejoined as a
     * replica with its replication link up and the cluster is ok everywhere.
     */
    public void restartNode(Node node) {
        requireKillable();
        node.process.restart();
        await(node + " rejoining as replica", () -> {
            try (RespClient client = node.client()) {
                String replication = client.callString("INFO", "replication");
                String role = RedisFixture.infoField(replication, "role");
                if (!"slave".equals(role)) {
                    return node + " has role " + role;
                }
                if (!"up".equals(RedisFixture.infoField(replication, "master_link_status"))) {
                    return node + " replication link is not up";
                }
            }
            return healthProblem(nodes.size());
        });
        node.slotsAtKill = null;
    }

    /** Starts nodes that are down (e.g. left killed by a test) and waits until the cluster is fully healthy. */
    public void ensureHealthy() {
        if (!external) {
            for (Node node : nodes) {
                if (!node.isAlive()) {
                    LOG.debugf("Cluster node %s was down; starting it again", node);
                    node.process.start();
                }
            }
        }
        await("a healthy cluster", () -> healthProblem(nodes.size()));
    }

    /** FLUSHALL on every primary. */
    public void flushAll() {
        for (Node primary : primaries()) {
            try (RespClient client = primary.client()) {
                client.call("FLUSHALL");
            }
        }
    }

    /** {@code redis_version} of a live node. */
    public String serverVersion() {
        try (RespClient client = anyLiveNode().client()) {
            return RedisFixture.infoField(client.callString("INFO", "server"), "redis_version");
        }
    }

    /** Stops the nodes of a cluster from {@link #startEmbedded()}; nothing for the shared one (stopped at exit). */
    @Override
    public void close() {
        if (owned && !external) {
            for (Node node : nodes) {
                node.process.stop();
            }
        }
    }

    @Override
    public String toString() {
        return "RedisClusterFixture[" + (external ? "EXTERNAL " : "EMBEDDED ") + seedUris() + "]";
    }

    // ------------------------------------------------------------------------------------------------------------

    /** One cluster node. Equal when host and port are. */
    public static final class Node {

        private final String host;
        private final int port;
        private final RedisServerProcess process; // null for an external cluster
        private volatile String id;
        private volatile List<int[]> slotsAtKill;

        Node(RedisServerProcess process) {
            this.host = process.host();
            this.port = process.port();
            this.process = process;
        }

        Node(String host, int port) {
            this.host = host;
            this.port = port;
            this.process = null;
        }

        public String host() {
            return host;
        }

        public int port() {
            return port;
        }

        /** {@code host:port} as in CLUSTER NODES and MOVED replies. */
        public String address() {
            return host + ":" + port;
        }

        public String uri() {
            return "redis://" + host + ":" + port;
        }

        /** A new connection to this node alone (no redirects followed). */
        public RespClient client() {
            return new RespClient(host, port);
        }

        /** The cluster node id (stable across restarts: it is kept in the node's nodes.conf). */
        public String id() {
            String known = id;
            if (known == null) {
                try (RespClient client = client()) {
                    known = client.callString("CLUSTER", "MYID");
                }
                id = known;
            }
            return known;
        }

        /** For an embedded node: is its process running. For an external one: does it answer PING. */
        public boolean isAlive() {
            if (process != null) {
                return process.isAlive();
            }
            try (RespClient client = client()) {
                return "PONG".equals(client.call("PING"));
            } catch (RuntimeException e) {
                return false;
            }
        }

        /** The process behind an embedded node, or null for an external cluster. */
        public RedisServerProcess process() {
            return process;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Node && ((Node) o).port == port && ((Node) o).host.equals(host);
        }

        @Override
        public int hashCode() {
            return Objects.hash(host, port);
        }

        @Override
        public String toString() {
            return "node " + address();
        }
    }

    // ------------------------------------------------------------------------------------------------------------

    /** Builds the cluster out of six freshly started, empty nodes; {@code ports[6..11]} are the bus ports. */
    private void form(int[] ports) {
        long started = System.nanoTime();
        for (Node node : nodes) {
            node.process.start();
        }
        for (int i = 0; i < nodes.size(); i++) {
            try (RespClient client = nodes.get(i).client()) {
                // distinct epochs up front, as redis-cli --cluster create does, instead of waiting for the
                // cluster to resolve epoch collisions on its own
                client.call("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
                if (i < PRIMARY_RANGES.length) {
                    client.call("CLUSTER", "ADDSLOTSRANGE", Integer.toString(PRIMARY_RANGES[i][0]),
                            Integer.toString(PRIMARY_RANGES[i][1]));
                }
            }
        }
        // Every node meets every later one, not only the first: gossip would spread the others too, but only after
        // about a second; direct handshakes take a few milliseconds.
        for (int i = 0; i < nodes.size(); i++) {
            try (RespClient client = nodes.get(i).client()) {
                for (int j = i + 1; j < nodes.size(); j++) {
                    // the bus port must be given since it is not port + 10000
                    client.call("CLUSTER", "MEET", RedisServerProcess.HOST, Integer.toString(ports[j]),
                            Integer.toString(ports[6 + j]));
                }
            }
        }
        await("all nodes to know each other", () -> {
            for (Node node : nodes) {
                List<NodeView> view = view(node);
                if (view.size() != nodes.size()) {
                    return node + " knows " + view.size() + " nodes";
                }
                for (NodeView v : view) {
                    if (v.flags.contains("handshake") || v.flags.contains("noaddr")) {
                        return node + " sees " + v.address() + " as " + v.flags;
                    }
                }
            }
            return null;
        });
        long met = System.nanoTime();
        for (int i = PRIMARY_RANGES.length; i < nodes.size(); i++) {
            String primaryId = nodes.get(i - PRIMARY_RANGES.length).id();
            try (RespClient client = nodes.get(i).client()) {
                client.call("CLUSTER", "REPLICATE", primaryId);
            }
        }
        await("cluster_state:ok and replication links up on all nodes", () -> healthProblem(nodes.size()));
        LOG.debugf("Cluster formed in %d ms (meet %d ms): %s", (System.nanoTime() - started) / 1_000_000,
                (met - started) / 1_000_000, seedUris());
    }

    /**
     * Null when every node answers with cluster_state:ok, knows all nodes with none failing, sees all slots served
     * by primaries and (for an embedded cluster) as many replicas as primaries, and each replica's link is up.
     * Otherwise the first problem found, for the timeout message.
     */
    private String healthProblem(int expectedNodes) {
        for (Node node : nodes) {
            if (!external && !node.isAlive()) {
                return node + " is not running";
            }
            try (RespClient client = node.client()) {
                String info = client.callString("CLUSTER", "INFO");
                String state = RedisFixture.infoField(info, "cluster_state");
                if (!"ok".equals(state)) {
                    return "cluster_state:" + state + " on " + node;
                }
                String known = RedisFixture.infoField(info, "cluster_known_nodes");
                if (!external && !Integer.toString(expectedNodes).equals(known)) {
                    return node + " knows " + known + " nodes";
                }
                List<NodeView> view = parseNodes(client.callString("CLUSTER", "NODES"));
                int primaries = 0;
                int replicas = 0;
                for (NodeView v : view) {
                    if (v.isFailing() || v.flags.contains("handshake") || v.flags.contains("noaddr")) {
                        return node + " sees " + v.address() + " as " + v.flags;
                    }
                    if (v.isMaster() && !v.slots.isEmpty()) {
                        primaries++;
                    } else if (v.flags.contains("slave")) {
                        replicas++;
                    }
                }
                if (!external && (primaries != PRIMARY_RANGES.length || replicas != expectedNodes - primaries)) {
                    return node + " sees " + primaries + " primaries and " + replicas + " replicas";
                }
                NodeView self = view.stream().filter(NodeView::isMyself).findFirst().orElse(null);
                if (self != null && self.flags.contains("slave")) {
                    String link = RedisFixture.infoField(client.callString("INFO", "replication"),
                            "master_link_status");
                    if (!"up".equals(link)) {
                        return "replica " + node + " has master_link_status:" + link;
                    }
                }
            }
        }
        return null;
    }

    /** Polls until {@code problem} returns null; a failing call counts as "not yet". */
    private static void await(String what, Supplier<String> problem) {
        long deadline = System.currentTimeMillis() + TIMEOUT_MILLIS;
        String last = "not checked yet";
        while (true) {
            try {
                last = problem.get();
                if (last == null) {
                    return;
                }
            } catch (RuntimeException e) {
                last = e.toString();
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("Timed out after " + TIMEOUT_MILLIS / 1000 + " s waiting for " + what
                        + "; last problem: " + last);
            }
            RedisServerProcess.sleep(50);
        }
    }

    private void requireKillable() {
        if (external) {
            throw new UnsupportedOperationException("Nodes of an external Redis Cluster cannot be killed; check canKill()");
        }
    }

    private static RedisClusterFixture attach(String ports) {
        List<Node> nodes = new ArrayList<>();
        for (String port : ports.split(",")) {
            nodes.add(new Node(RedisServerProcess.attach(Integer.parseInt(port))));
        }
        return new RedisClusterFixture(nodes, false, false);
    }

    private static RedisClusterFixture external(String url) {
        List<RedisEndpoint> seeds = Arrays.stream(url.split(",")).map(String::trim).filter(s -> !s.isEmpty())
                .map(RedisEndpoint::parse).collect(Collectors.toList());
        RuntimeException last = null;
        for (RedisEndpoint seed : seeds) {
            try (RespClient client = seed.client()) {
                List<Node> nodes = parseNodes(client.callString("CLUSTER", "NODES")).stream()
                        .filter(v -> !v.isFailing())
                        .map(v -> new Node(v.host.isEmpty() ? seed.host() : v.host, v.port))
                        .collect(Collectors.toList());
                return new RedisClusterFixture(nodes, true, false);
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw new IllegalStateException("No seed of the external Redis Cluster " + url + " (from " + URL_PROPERTY + " / "
                + URL_ENV + ") answers CLUSTER NODES", last);
    }

    private Node anyLiveNode() {
        for (Node node : nodes) {
            if (node.isAlive()) {
                return node;
            }
        }
        throw new IllegalStateException("No cluster node is running");
    }

    private Node nodeFor(NodeView view) {
        for (Node node : nodes) {
            if (node.port == view.port && (view.host.isEmpty() || node.host.equals(view.host))) {
                return node;
            }
        }
        return new Node(view.host, view.port); // a node of an external cluster added after the fixture was built
    }

    private static String clusterState(Node node) {
        try (RespClient client = node.client()) {
            return RedisFixture.infoField(client.callString("CLUSTER", "INFO"), "cluster_state");
        }
    }

    private static List<NodeView> view(Node node) {
        try (RespClient client = node.client()) {
            return parseNodes(client.callString("CLUSTER", "NODES"));
        }
    }

    /** One line of CLUSTER NODES: {@code id ip:port@bus[,hostname] flags master ping pong epoch link slot...}. */
    private static final class NodeView {
        final String id;
        final String host;
        final int port;
        final Set<String> flags;
        final List<int[]> slots;

        NodeView(String id, String host, int port, Set<String> flags, List<int[]> slots) {
            this.id = id;
            this.host = host;
            this.port = port;
            this.flags = flags;
            this.slots = slots;
        }

        boolean isMaster() {
            return flags.contains("master");
        }

        boolean isMyself() {
            return flags.contains("myself");
        }

        boolean isFailing() {
            return flags.contains("fail") || flags.contains("fail?");
        }

        boolean owns(int slot) {
            for (int[] range : slots) {
                if (slot >= range[0] && slot <= range[1]) {
                    return true;
                }
            }
            return false;
        }

        String address() {
            return host + ":" + port;
        }
    }

    private static List<NodeView> parseNodes(String text) {
        List<NodeView> views = new ArrayList<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length < 8) {
                continue;
            }
            String address = f[1];
            int comma = address.indexOf(',');
            if (comma >= 0) {
                address = address.substring(0, comma); // ",hostname" suffix
            }
            int at = address.indexOf('@');
            if (at >= 0) {
                address = address.substring(0, at); // "@busport" suffix
            }
            int colon = address.lastIndexOf(':');
            String host = address.substring(0, colon);
            int port = Integer.parseInt(address.substring(colon + 1));
            List<int[]> slots = new ArrayList<>();
            for (int i = 8; i < f.length; i++) {
                if (f[i].startsWith("[")) {
                    continue; // a slot being imported/migrated, not owned
                }
                int dash = f[i].indexOf('-');
                int from = Integer.parseInt(dash < 0 ? f[i] : f[i].substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(f[i].substring(dash + 1));
                slots.add(new int[] { from, to });
            }
            views.add(new NodeView(f[0], host, port, new HashSet<>(Arrays.asList(f[2].split(","))), slots));
        }
        return views;
    }

    private static String ranges(List<int[]> slots) {
        return slots == null ? "[]"
                : slots.stream().map(r -> r[0] + "-" + r[1]).collect(Collectors.joining(",", "[", "]"));
    }

    /** CRC16-CCITT (XMODEM): polynomial 0x1021, initial value 0, no reflection, as Redis Cluster uses. */
    private static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xFF) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xFFFF;
        }
        return crc;
    }
}
