package dev.ratelimit.benchmark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import org.jboss.logging.Logger;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.redis.RedisBackend;
import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;
import dev.ratelimit.runtime.backend.redis.transport.LuaScriptExecutor;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.test.redis.RespClient;
import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Context;
import io.vertx.core.impl.VertxInternal;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;

/**
 * Decisions per second and latency of every contender, for each key set and number of callers.
 * Within a cell group (one key set, one number of callers) the contenders run back to back, several
 * times in rotated order, so the ratios compare measurements taken under the same conditions; a row
 * is the median of its repetitions, with their range.
 */
final class LimiterSuite {

    private static final Logger LOG = Logger.getLogger(LimiterSuite.class);

    static final String CEILING = "ceiling: EVALSHA return 1";
    static final String REDISSON = "Redisson RRateLimiter";
    static final String BUCKET4J = "Bucket4j (Lettuce, CAS)";
    static final String BUCKET4J_BATCHING = "Bucket4j (Lettuce, CAS) batching";
    /** Bucket4j's inexact modes, the peers of our quota leasing ({@link Contenders#BUCKET4J_DELAY}). */
    static final String BUCKET4J_DELAYING = "Bucket4j (Lettuce, CAS) delaying";
    static final String BUCKET4J_PREDICTING = "Bucket4j (Lettuce, CAS) predicting";
    /** The peers that decide every call in Redis, as ours do without leasing. */
    static final List<String> EXACT_PEERS = List.of(REDISSON, BUCKET4J, BUCKET4J_BATCHING);
    /** The peers that decide calls in the process on what they took from Redis, as ours do with leasing. */
    static final List<String> INEXACT_PEERS = List.of(BUCKET4J_DELAYING, BUCKET4J_PREDICTING);
    static final String OURS = "ours: ";
    /**
     * The suffix of our rows with quota leasing: {@code ours: token-bucket leased} decides on policy
     * {@code token-bucket-leased}, the policy of {@code ours: token-bucket} with {@code lease=auto}.
     */
    static final String LEASED = " leased";
    /** The algorithms measured with quota leasing too (a policy {@code <algorithm>-leased} each). */
    static final List<String> LEASED_ALGORITHMS = List.of("token-bucket", "fixed-window");
    /**
     * The leased rows again on a policy admitting 10 times more ({@code <algorithm>-leased-10m}: 10,000,000 per
     * second, the most a policy decides exactly in one window; {@code lease=auto}): a closed loop deciding from slices
     * asks more than the 1,000,000 per second every other row admits, so the leased rows measure that limit; these
     * measure what leasing itself can decide.
     */
    static final String LEASED_HIGH = "diagnostic: %s leased, limit 10M/s";
    /**
     * The leasing comparison on policies that never deny here, the plain row ({@code ours: <algorithm> 1e8/s}, policy
     * {@code <algorithm>-1e8}) and the leased row ({@code ours: <algorithm> 1e8/s leased}, policy
     * {@code <algorithm>-1e8-leased}, {@code lease=auto}): 10,000,000 per 100 ms window, 10^8 per second, the most
     * a policy decides exactly in a window of 100 ms. Neither meets its limit, so their ratio is leasing's alone.
     */
    static final String NEVER_DENIES = " 1e8/s";

    /**
     * The plain row a leased row is compared with ({@code ours: <algorithm>}, or {@code ours: <algorithm> 1e8/s} for
     * {@code ours: <algorithm> 1e8/s leased}), or null for another row.
     */
    static String plainOf(String contender) {
        for (String a : LEASED_ALGORITHMS) {
            if (contender.equals(OURS + a + LEASED) || contender.equals(String.format(LEASED_HIGH, a))) {
                return OURS + a;
            }
            if (contender.equals(OURS + a + NEVER_DENIES + LEASED)) {
                return OURS + a + NEVER_DENIES;
            }
        }
        return null;
    }

    /** A plain row of the leasing comparison ({@code ours: <algorithm> 1e8/s}): not one of the per-algorithm rows. */
    static boolean neverDenies(String contender) {
        return contender.startsWith(OURS) && contender.endsWith(NEVER_DENIES);
    }
    /**
     * The backend {@code ours: token-bucket} decides with, called without the limiter around it: in the default set
     * (only {@code experiment:} rows and the cluster comparison are not), and set against {@code ours: token-bucket}
     * in the report.
     */
    static final String BACKEND_ONLY = "diagnostic: backend only, token-bucket";
    /**
     * The cluster comparison: a backend of the limiter's shape (its {@code max-batch} and connections, the Quarkus
     * client's options, scripts by {@code EVALSHA} as on any cluster) called directly, on a Redis Cluster of three
     * primaries the suite starts ({@link BenchCluster}) and, built the same way, on the one Redis of the other rows:
     * the only difference is cluster or not. Left out of the default set (three more redis-server processes on the
     * machine, four more rows in every cell group): {@code -Dbench.contenders=cluster:,one redis:}.
     */
    static final String CLUSTER = "cluster: ";
    static final String ONE_REDIS = "one redis: ";
    static final List<String> CLUSTER_ALGORITHMS = List.of("token-bucket", "fixed-window");

    /** {@code cluster: <algorithm> (3 primaries)}. */
    static String clusterRow(String algorithm) {
        return CLUSTER + algorithm + " (3 primaries)";
    }

    /** {@code one redis: <algorithm>}. */
    static String oneRedisRow(String algorithm) {
        return ONE_REDIS + algorithm;
    }

    /** The one-Redis row a cluster row is compared with, or null for another row. */
    static String oneRedisOf(String contender) {
        for (String a : CLUSTER_ALGORITHMS) {
            if (contender.equals(clusterRow(a))) {
                return oneRedisRow(a);
            }
        }
        return null;
    }

    static final String TIMEOUT_VERTX = "experiment: backend + ifNoItem (default scheduler)";
    static final String TIMEOUT_STPE = "experiment: backend + ifNoItem (ScheduledThreadPoolExecutor)";
    static final String POOLED_DEFAULT = "before: pooled send (pool 6+24), token-bucket";
    static final String POOLED_LARGE = "before: pooled send (pool 64), token-bucket";
    /**
     * The token-bucket backend on executors with other batch sizes ({@code max-batch}) and connection
     * counts, at the highest number of callers only. The defaults are 16 and 2.
     */
    static final String SHAPE = "batching: backend, ";
    private static final int[][] SHAPES = { { 1, 2 }, { 4, 2 }, { 16, 2 }, { 64, 2 }, { 16, 1 }, { 16, 4 } };

    /**
     * One cell: the median of its repetitions for every figure, the range of decisions per second, and the
     * sums of what was counted (failed, decided and admitted calls; calls per connection, when counted; the
     * {@link Tally} figures), and the decisions per second of each repetition in the order they ran
     * ({@code rates}: a leased row and its plain row, measured in the same repetitions, are compared pair by pair).
     * CPU figures are per decision; NaN when no call was decided. {@code jitCpuMicros}: the part of the JVM's CPU its
     * JIT compiler threads spent, and {@code jvmCpuWithoutJitMicros} the rest (each the median of its repetitions; NaN
     * where the JIT's threads cannot be read, off Linux). {@code leased}: a row with quota leasing, whose decisions
     * Redis made itself were counted.
     */
    record Row(String keySet, int keys, int concurrency, String contender, double decisionsPerSecond, double p50,
            double p99, double p999, long failures, double jvmCpuMicros, double redisCpuMicros,
            double minDecisionsPerSecond, double maxDecisionsPerSecond, int repetitions, long decided, long admitted,
            long[] callsPerConnection, long[] tallied, List<Double> rates, boolean leased, double jitCpuMicros,
            double jvmCpuWithoutJitMicros) {

        static Row of(String keySet, int keys, int concurrency, String contender, List<ClosedLoop.Measurement> runs,
                boolean leased) {
            long failures = 0, decided = 0, admitted = 0;
            long[] perConnection = new long[0];
            long[] tallied = new long[Tally.SIZE];
            for (ClosedLoop.Measurement m : runs) {
                failures += m.failures();
                decided += m.succeeded();
                admitted += m.admitted();
                if (m.counted().length > perConnection.length) {
                    perConnection = Arrays.copyOf(perConnection, m.counted().length);
                }
                for (int i = 0; i < m.counted().length; i++) {
                    perConnection[i] += m.counted()[i];
                }
                for (int i = 0; i < Math.min(tallied.length, m.tallied().length); i++) {
                    tallied[i] += m.tallied()[i];
                }
            }
            List<Double> rates = runs.stream().map(ClosedLoop.Measurement::decisionsPerSecond).toList();
            return new Row(keySet, keys, concurrency, contender, median(rates),
                    median(runs.stream().map(m -> m.micros(50)).toList()), median(runs.stream().map(m -> m.micros(99)).toList()),
                    median(runs.stream().map(m -> m.micros(99.9)).toList()), failures,
                    median(runs.stream().map(ClosedLoop.Measurement::jvmCpuMicrosPerCall).toList()),
                    median(runs.stream().map(ClosedLoop.Measurement::redisCpuMicrosPerCall).toList()),
                    rates.stream().mapToDouble(d -> d).min().orElse(0), rates.stream().mapToDouble(d -> d).max().orElse(0),
                    runs.size(), decided, admitted, perConnection, tallied, rates, leased,
                    median(runs.stream().map(ClosedLoop.Measurement::jitCpuMicrosPerCall).toList()),
                    median(runs.stream().map(ClosedLoop.Measurement::jvmCpuWithoutJitMicrosPerCall).toList()));
        }

        /** A {@link Tally} figure over the decisions made; NaN when none was made. */
        double perDecision(int tally) {
            return decided == 0 ? Double.NaN : (double) tallied[tally] / decided;
        }

        /** The share of the decisions made from a slice, without a Redis call (leased rows). */
        double fromSlice() {
            return decided == 0 ? Double.NaN : 1.0 - (double) tallied[Tally.DECIDED_IN_REDIS] / decided;
        }

        /** The mean units of a slice granted (leased rows); NaN when none was. */
        double unitsPerSlice() {
            return tallied[Tally.SLICES] == 0 ? Double.NaN : (double) tallied[Tally.SLICED_UNITS] / tallied[Tally.SLICES];
        }

        /** The share of the leased units given back unused (leased rows); NaN when none was leased. */
        double returnedShare() {
            return tallied[Tally.SLICED_UNITS] == 0 ? Double.NaN
                    : (double) tallied[Tally.RETURNED_UNITS] / tallied[Tally.SLICED_UNITS];
        }

        /** Whether every call Redis decided was an admission, as every contender is set up to give. */
        boolean allAdmitted() {
            return admitted == decided;
        }

        /** The share of the calls each connection carried, e.g. {@code 52% / 48%}; empty when not counted. */
        String connectionShares() {
            long total = Arrays.stream(callsPerConnection).sum();
            StringBuilder b = new StringBuilder();
            for (long c : callsPerConnection) {
                b.append(b.length() == 0 ? "" : " / ")
                        .append(String.format(Locale.ROOT, "%.0f%%", total == 0 ? 0.0 : 100.0 * c / total));
            }
            return b.toString();
        }

        /** The median; of an even count, the mean of the middle two. NaN values (nothing decided) are left out. */
        static double median(List<Double> values) {
            List<Double> sorted = new ArrayList<>(values.stream().filter(v -> !v.isNaN()).toList());
            if (sorted.isEmpty()) {
                return Double.NaN;
            }
            sorted.sort(null);
            int n = sorted.size();
            return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
        }
    }

    /** The experiment's alternative timer: cancelled tasks are left in the queue, so a cancel is O(1). */
    private static final java.util.concurrent.ScheduledExecutorService TIMER = new java.util.concurrent.ScheduledThreadPoolExecutor(1,
            r -> {
                Thread t = new Thread(r, "bench-timeout-timer");
                t.setDaemon(true);
                return t;
            });

    private final Settings settings;
    private final DefaultRateLimiter limiter;
    private final LuaScriptExecutor ceilingExecutor;
    private final LuaScriptExecutor floorExecutor;
    private final String redisUri;
    private final Vertx vertx;
    private final LuaScriptRegistry scripts;
    private final RespClient admin;
    /** The one Redis, as a contender's {@link Servers}. */
    private final Servers main;
    /** The options of the Quarkus Redis client, which the limiter's executor is built with. */
    private final RedisOptions clientOptions;
    /** The Redis Cluster of the {@code cluster:} rows, started when one is selected; null otherwise. */
    private BenchCluster cluster;
    private final DecisionTally tally;
    /** One context on each Vert.x event loop: where the callers start. */
    private final List<Executor> eventLoops = new ArrayList<>();

    /**
     * @param ceilingExecutor an executor that sends every call alone, for the {@value #CEILING} row
     * @param floorExecutor an executor shaped as the limiter's ({@code max-batch} and connections), on the same
     *        Redis client, for the floors
     * @param clientOptions the options of the Quarkus Redis client (those the limiter's executor is built with), for
     *        the cluster comparison's executors
     */
    LimiterSuite(Settings settings, DefaultRateLimiter limiter, LuaScriptExecutor ceilingExecutor,
            LuaScriptExecutor floorExecutor, String redisUri, RedisOptions clientOptions, Vertx vertx,
            LuaScriptRegistry scripts, RespClient admin, DecisionTally tally) {
        this.admin = admin;
        this.main = new Servers(List.of(admin));
        this.clientOptions = clientOptions;
        this.tally = tally;
        this.settings = settings;
        this.limiter = limiter;
        this.ceilingExecutor = ceilingExecutor;
        this.floorExecutor = floorExecutor;
        // a new event-loop context takes the next event loop, in turn: one per event loop
        VertxInternal core = (VertxInternal) vertx.getDelegate();
        int loops = 0;
        for (EventExecutor ignored : core.getEventLoopGroup()) {
            loops++;
        }
        for (int i = 0; i < loops; i++) {
            Context context = core.createEventLoopContext();
            eventLoops.add(task -> context.runOnContext(v -> task.run()));
        }
        LOG.infof("Callers start on %d event loops", loops);
        this.redisUri = redisUri;
        this.vertx = vertx;
        this.scripts = scripts;
    }

    /**
     * An executor of the limiter's shape, as the application configures it ({@code quarkus.ratelimit.redis.max-batch},
     * {@code quarkus.ratelimit.redis.connections}: one per event loop unless bounded), on these client options.
     */
    static LuaScriptExecutor limiterShaped(io.vertx.core.Vertx vertx, RedisOptions options) {
        org.eclipse.microprofile.config.Config config = org.eclipse.microprofile.config.ConfigProvider.getConfig();
        return new LuaScriptExecutor(vertx, options,
                config.getValue("quarkus.ratelimit.redis.max-batch", Integer.class),
                config.getOptionalValue("quarkus.ratelimit.redis.connections", Integer.class)
                        .orElse(LuaScriptExecutor.ONE_PER_EVENT_LOOP));
    }

    List<Row> measure() {
        if (CLUSTER_ALGORITHMS.stream().anyMatch(a -> settings.measures(clusterRow(a)))) {
            cluster = BenchCluster.start();
        }
        try {
            return measureAll();
        } finally {
            if (cluster != null) {
                cluster.close();
                cluster = null;
            }
        }
    }

    private List<Row> measureAll() {
        List<Row> rows = new ArrayList<>();
        Lineup lineup = new Lineup();
        if (settings.warmupPass()) {
            warmUpPass(lineup);
        }
        for (String kind : settings.keySets()) {
            KeySet keySet = KeySet.of(kind, settings);
            LOG.infof("Key set %s: the hottest key takes %.2f%% of the calls", keySet.name(), 100 * keySet.hottestShare());
            String[] ids = Contenders.identities(keySet.size());
            try (Peers peers = new Peers(ids)) {
                for (int concurrency : settings.concurrency()) {
                    rows.addAll(measure(keySet, concurrency, lineup.group(ids, concurrency, peers)));
                }
            }
        }
        return rows;
    }

    /**
     * The JVM-wide warm-up pass ({@code bench.warmup.pass}): before the first measured cell, every selected contender
     * runs once for {@code bench.warmup} on each selected key set, with the most callers, unmeasured. Without it the
     * first cells measured (the hot key's, the first repetition's) ran while C2 still compiled the paths every
     * contender shares (the executor, the Vert.x client, the closed loop): the JIT's CPU in the first cell of a run
     * was 1 to 2.5 µs per decision, against none a few cells later. The per-cell warm-up stays: it settles a
     * contender's own state (connections, pools, leased slices), this pass the JVM's.
     */
    private void warmUpPass(Lineup lineup) {
        long start = System.nanoTime();
        int concurrency = maxConcurrency();
        int cells = 0;
        for (String kind : settings.keySets()) {
            KeySet keySet = KeySet.of(kind, settings);
            String[] ids = Contenders.identities(keySet.size());
            try (Peers peers = new Peers(ids)) {
                for (Contender c : lineup.group(ids, concurrency, peers)) {
                    flush();
                    if (c.prepare() != null) {
                        c.prepare().run();
                    }
                    ClosedLoop.Measurement m = ClosedLoop.run(c.operation(), keySet, concurrency, settings.warmupMillis(), 0,
                            eventLoops, () -> 0, null, null);
                    LOG.infof("%-9s %3d callers  %-34s warm-up pass, not measured (%s)", keySet.name(), concurrency,
                            c.name(), m.failures() > 0 ? m.failures() + " failed" : "no failure");
                    cells++;
                    ClosedLoop.sleep(300);
                }
            }
        }
        LOG.infof("Warm-up pass: %d cells of %d ms in %d s", cells, settings.warmupMillis(),
                (System.nanoTime() - start) / 1_000_000_000L);
    }

    private int maxConcurrency() {
        return settings.concurrency().stream().mapToInt(i -> i).max().getAsInt();
    }

    /**
     * The peers' clients for one key set, those {@code bench.contenders} selects, in the order of their rows; closed
     * when the key set is done (a client holds a state per key).
     */
    private final class Peers implements AutoCloseable {
        final Map<String, Contenders.Peer> byName = new LinkedHashMap<>();

        Peers(String[] ids) {
            try {
                open(REDISSON, () -> Contenders.redisson(redisUri, ids));
                open(BUCKET4J, () -> Contenders.bucket4j(redisUri, ids, Contenders.Bucket4jMode.EXACT));
                open(BUCKET4J_BATCHING, () -> Contenders.bucket4j(redisUri, ids, Contenders.Bucket4jMode.BATCHING));
                open(BUCKET4J_DELAYING, () -> Contenders.bucket4j(redisUri, ids, Contenders.Bucket4jMode.DELAYING));
                open(BUCKET4J_PREDICTING, () -> Contenders.bucket4j(redisUri, ids, Contenders.Bucket4jMode.PREDICTING));
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        private void open(String name, Supplier<Contenders.Peer> create) {
            if (settings.measures(name)) {
                byName.put(name, create.get());
            }
        }

        @Override
        public void close() {
            for (Contenders.Peer p : byName.values()) {
                p.close().run();
            }
        }
    }

    /**
     * What the rows of a cell group are made of, made once per run: the floors, the pooled clients of the design
     * before, and the executors of the {@code batching:} rows (an executor keeps its connections for the run).
     */
    private final class Lineup {
        final LuaScript returnOne;
        final Floors floors;
        // the Quarkus defaults (max-pool-size 6, max-pool-waiting 24), and a pool sized for 64 callers
        final Redis pooledDefault = Redis.createClient(vertx, new RedisOptions().setConnectionString(redisUri)
                .setMaxPoolSize(6).setMaxPoolWaiting(24));
        final Redis pooledLarge = Redis.createClient(vertx, new RedisOptions().setConnectionString(redisUri)
                .setMaxPoolSize(64).setMaxPoolWaiting(1024));
        final Map<String, Shape> shapes = new HashMap<>();
        /** The cluster comparison's backends, one on the one Redis and one on the cluster, made when first needed. */
        RateLimitBackend oneRedis;
        RateLimitBackend onCluster;

        Lineup() {
            String body = "return 1";
            returnOne = new LuaScript("ceiling", body, LuaScript.sha1(body));
            floors = new Floors(floorExecutor, returnOne);
        }

        /**
         * The rows {@code bench.contenders} selects for one key set ({@code ids}) and number of callers, in order, the
         * peers' on the clients of {@code peers}.
         */
        List<Contender> group(String[] ids, int concurrency, Peers peers) {
            List<Contender> group = new ArrayList<>();
            add(group, Floors.BATCH_GET_SET, () -> floors.batchGetSet(ids));
            add(group, Floors.ONE_GET_SET, () -> floors.oneGetSet(ids));
            add(group, Floors.BATCH_RETURN_ONE, () -> floors.batchReturnOne(ids));
            add(group, CEILING, () -> Contenders.ceiling(ceilingExecutor, returnOne, "rl", ids));
            for (Algorithm a : Contenders.RATE_ALGORITHMS) {
                add(group, OURS + a.configName(), () -> Contenders.limiter(limiter, a.configName(), ids));
            }
            for (String a : LEASED_ALGORITHMS) {
                addLeased(group, OURS + a + LEASED, a + "-leased", ids);
            }
            for (String a : LEASED_ALGORITHMS) {
                addLeased(group, String.format(LEASED_HIGH, a), a + "-leased-10m", ids);
            }
            for (String a : LEASED_ALGORITHMS) {
                add(group, OURS + a + NEVER_DENIES, () -> Contenders.limiter(limiter, a + "-1e8", ids));
                addLeased(group, OURS + a + NEVER_DENIES + LEASED, a + "-1e8-leased", ids);
            }
            add(group, BACKEND_ONLY, () -> Contenders.backendOnly(limiter, "token-bucket", ids));
            add(group, TIMEOUT_VERTX, () -> Contenders.backendWithTimeout(limiter, "token-bucket", ids, null));
            add(group, TIMEOUT_STPE, () -> Contenders.backendWithTimeout(limiter, "token-bucket", ids, TIMER));
            add(group, POOLED_DEFAULT, () -> Contenders.pooledBackend(pooledDefault, scripts,
                    limiter.policies().get("token-bucket"), ids));
            add(group, POOLED_LARGE, () -> Contenders.pooledBackend(pooledLarge, scripts,
                    limiter.policies().get("token-bucket"), ids));
            if (concurrency == maxConcurrency()) {
                for (int[] s : SHAPES) {
                    String name = SHAPE + "max-batch " + s[0] + ", " + s[1] + " connections";
                    if (settings.measures(name)) {
                        // one executor per shape for the whole run: an executor keeps its connections
                        Shape shape = shapes.computeIfAbsent(name, n -> new Shape(vertx.getDelegate(), redisUri, scripts, s[0], s[1]));
                        group.add(new Contender(name, Contenders.backend(shape.backend,
                                limiter.policies().get("token-bucket"), ids), null, null, null));
                    }
                }
            }
            for (String a : CLUSTER_ALGORITHMS) {
                Policy policy = limiter.policies().get(a);
                if (settings.measures(oneRedisRow(a))) {
                    group.add(new Contender(oneRedisRow(a), Contenders.backend(oneRedis(), policy, ids), null, null, null,
                            main));
                }
                if (cluster != null && settings.measures(clusterRow(a))) {
                    group.add(new Contender(clusterRow(a), Contenders.backend(onCluster(), policy, ids), null, null,
                            null, new Servers(cluster.admins())));
                }
            }
            peers.byName.forEach((name, p) -> group.add(new Contender(name, p.operation(), p.prepare(), null, null)));
            return group;
        }

        /** The backend of the one-Redis rows: the limiter's shape on a copy of the client's options. */
        RateLimitBackend oneRedis() {
            if (oneRedis == null) {
                oneRedis = comparisonBackend(new RedisOptions(clientOptions), false);
            }
            return oneRedis;
        }

        /** The backend of the cluster rows: the same, the client type set to cluster and the nodes as seeds. */
        RateLimitBackend onCluster() {
            if (onCluster == null) {
                onCluster = comparisonBackend(new RedisOptions(clientOptions).setType(RedisClientType.CLUSTER)
                        .setEndpoints(new ArrayList<>(cluster.seeds())), true);
            }
            return onCluster;
        }

        /**
         * A backend on an executor of the limiter's shape, its scripts loaded first (by {@code EVALSHA}, no function
         * library: the extension loads none on a cluster, and the one-Redis rows must differ in nothing else).
         */
        private RateLimitBackend comparisonBackend(RedisOptions options, boolean onCluster) {
            LuaScriptExecutor executor = limiterShaped(vertx.getDelegate(), options);
            try {
                executor.preload(scripts.all()).await().atMost(java.time.Duration.ofSeconds(10));
            } catch (RuntimeException e) {
                LOG.warnf("Could not preload the scripts (%s): the first calls send them", e.toString());
            }
            return new RedisBackend(executor, scripts, onCluster);
        }
    }

    /**
     * Every contender of one cell group (one key set, one number of callers) {@code bench.repetitions} times:
     * each repetition runs them all, one after the other, starting at another place of the list, so no
     * contender always follows the same one or always runs first (when the machine, shared, may be quieter).
     */
    private List<Row> measure(KeySet keys, int concurrency, List<Contender> group) {
        String keySet = keys.name();
        int n = group.size();
        int repetitions = settings.repetitions();
        Map<String, List<ClosedLoop.Measurement>> samples = new LinkedHashMap<>();
        for (Contender c : group) {
            samples.put(c.name(), new ArrayList<>());
        }
        for (int r = 0; r < repetitions; r++) {
            int first = n == 0 ? 0 : r * n / repetitions;
            for (int i = 0; i < n; i++) {
                Contender c = group.get((first + i) % n);
                samples.get(c.name()).add(cell(concurrency, keys, c, r + 1));
            }
        }
        List<Row> rows = new ArrayList<>();
        for (Contender c : group) {
            Row row = Row.of(keySet, keys.size(), concurrency, c.name(), samples.get(c.name()), c.inRedis() != null);
            LOG.infof("%-9s %3d callers  %-34s median of %d: %,9.0f /s (%,.0f-%,.0f)  p99 %,7.0f us  admitted %d of %d%s%s"
                    + "  Redis commands/decision %.4f%s",
                    keySet, concurrency, c.name(), row.repetitions(), row.decisionsPerSecond(), row.minDecisionsPerSecond(),
                    row.maxDecisionsPerSecond(), row.p99(), row.admitted(), row.decided(),
                    row.failures() > 0 ? ", " + row.failures() + " failed" : "",
                    row.callsPerConnection().length > 0 ? ", calls per connection " + row.connectionShares() : "",
                    row.perDecision(Tally.REDIS_COMMANDS), row.leased() ? leasing(row.tallied(), row.decided()) : "");
            rows.add(row);
        }
        return rows;
    }

    /** Adds a contender of ours, or a reference, if {@code bench.contenders} selects it. */
    private void add(List<Contender> group, String name, Supplier<Operation> operation) {
        if (settings.measures(name)) {
            group.add(new Contender(name, operation.get(), null, null, null));
        }
    }

    /** Adds a leased row of ours on {@code policy}, if {@code bench.contenders} selects it. */
    private void addLeased(List<Contender> group, String name, String policy, String[] ids) {
        if (settings.measures(name)) {
            LongAdder inRedis = new LongAdder();
            group.add(new Contender(name, Contenders.leasedLimiter(limiter, policy, ids, inRedis), null, null, inRedis));
        }
    }

    /** One measured run of one contender, from a Redis emptied of every other contender's keys. */
    private ClosedLoop.Measurement cell(int concurrency, KeySet keys, Contender c, int repetition) {
        flush();
        Servers servers = c.servers() == null ? main : c.servers();
        if (c.prepare() != null) {
            c.prepare().run();
        }
        LongAdder inRedis = c.inRedis();
        Supplier<long[]> tallies = () -> {
            long[] redis = servers.commands();
            long[] leasing = tally.leasing();
            long[] t = new long[Tally.SIZE];
            t[Tally.REDIS_COMMANDS] = redis[0];
            t[Tally.SCRIPT_CALLS] = redis[1];
            System.arraycopy(leasing, 0, t, Tally.SLICES, leasing.length);
            t[Tally.DECIDED_IN_REDIS] = inRedis == null ? 0 : inRedis.sum();
            return t;
        };
        ClosedLoop.Measurement m = ClosedLoop.run(c.operation(), keys, concurrency, settings.warmupMillis(),
                settings.durationMillis(), eventLoops, servers::cpuSeconds, c.counters(), tallies);
        LOG.infof("%-9s %3d callers  %-34s #%d %,9.0f /s  p50 %,7.0f  p99 %,7.0f  p99.9 %,7.0f us  CPU/decision JVM %.1f (JIT %.2f)"
                + " Redis %.1f us  Redis commands/decision %.4f  allocated %.0f B/decision%s%s%s",
                keys.name(), concurrency, c.name(), repetition, m.decisionsPerSecond(), m.micros(50), m.micros(99), m.micros(99.9),
                m.jvmCpuMicrosPerCall(), m.jitCpuMicrosPerCall(), m.redisCpuMicrosPerCall(),
                m.succeeded() == 0 ? Double.NaN : (double) m.tallied()[Tally.REDIS_COMMANDS] / m.succeeded(),
                m.allocatedPerCall(), inRedis != null ? leasing(m.tallied(), m.succeeded()) : "",
                m.admitted() != m.succeeded() ? "  ADMITTED " + m.admitted() + " of " + m.succeeded() : "",
                m.failures() > 0 ? "  FAILED " + m.failures() + " (" + m.lastFailure() + ")" : "");
        ClosedLoop.sleep(300); // let the last replies and the GC settle before the next contender
        return m;
    }

    /** What a leased cell counted: slices per decision, the share decided from a slice, units per slice. */
    private static String leasing(long[] t, long decided) {
        return String.format(Locale.ROOT, "  script calls/decision %.2e  slices/decision %.2e  from a slice %.2f%%"
                + "  units/slice %,.0f  given back %.1f%%",
                decided == 0 ? Double.NaN : (double) t[Tally.SCRIPT_CALLS] / decided,
                decided == 0 ? Double.NaN : (double) t[Tally.SLICES] / decided,
                decided == 0 ? Double.NaN : 100.0 * (decided - t[Tally.DECIDED_IN_REDIS]) / decided,
                t[Tally.SLICES] == 0 ? Double.NaN : (double) t[Tally.SLICED_UNITS] / t[Tally.SLICES],
                t[Tally.SLICED_UNITS] == 0 ? Double.NaN : 100.0 * t[Tally.RETURNED_UNITS] / t[Tally.SLICED_UNITS]);
    }

    /**
     * A row of the suite: an operation, what it needs done after a {@code FLUSHALL} (null: nothing), the calls it
     * sent per connection so far (null: not counted), for a leased row the decisions Redis made itself so far
     * (null: not a leased row), and the Redis servers it runs on, whose CPU and commands its cells count (null: the
     * one Redis).
     */
    private record Contender(String name, Operation operation, Runnable prepare,
            Supplier<long[]> counters, LongAdder inRedis, Servers servers) {

        Contender(String name, Operation operation, Runnable prepare, Supplier<long[]> counters, LongAdder inRedis) {
            this(name, operation, prepare, counters, inRedis, null);
        }
    }

    /**
     * Empties every Redis of the run before a cell, the cluster's nodes too: no contender finds another's keys, and
     * none pays for memory another left.
     */
    private void flush() {
        admin.call("FLUSHALL");
        if (cluster != null) {
            for (RespClient node : cluster.admins()) {
                node.call("FLUSHALL");
            }
        }
    }

    /**
     * The Redis servers a row runs on, one or a cluster's nodes: their CPU and the commands they ran are summed, so
     * that a cluster row's Redis CPU and script calls per decision count every node.
     */
    private record Servers(List<RespClient> admins) {

        double cpuSeconds() {
            return admins.stream().mapToDouble(LimiterSuite::redisCpuSeconds).sum();
        }

        long[] commands() {
            long[] sum = new long[2];
            for (RespClient a : admins) {
                long[] c = redisCommands(a);
                sum[0] += c[0];
                sum[1] += c[1];
            }
            return sum;
        }
    }

    /**
     * What every cell counts over its measured period besides the calls ({@link ClosedLoop.Measurement#tallied}), by
     * index: the commands Redis ran ({@code INFO commandstats}, every command but the {@code INFO} this suite sends),
     * its script and function calls ({@code EVALSHA}, {@code EVAL}, {@code FCALL}), the slices the limiter leased and
     * their units, the slices that ended with units given back and those units ({@link DecisionTally#leasing}), and
     * for leased rows the decisions Redis made itself rather than a slice.
     */
    static final class Tally {
        static final int REDIS_COMMANDS = 0;
        static final int SCRIPT_CALLS = 1;
        static final int SLICES = 2;
        static final int SLICED_UNITS = 3;
        static final int RETURNS = 4;
        static final int RETURNED_UNITS = 5;
        static final int DECIDED_IN_REDIS = 6;
        static final int SIZE = 7;

        private Tally() {
        }
    }

    /** The backend on an executor of its own shape (connections one per event loop, up to the bound). */
    private static final class Shape {
        final RedisBackend backend;

        Shape(io.vertx.core.Vertx vertx, String redisUri, LuaScriptRegistry scripts, int maxBatch, int connections) {
            this.backend = new RedisBackend(new LuaScriptExecutor(vertx,
                    new RedisOptions().setConnectionString(redisUri), maxBatch, connections), scripts, false);
        }
    }

    /** Redis' own CPU time so far (user + system), in seconds, from {@code INFO cpu}. */
    static double redisCpuSeconds(RespClient admin) {
        double seconds = 0;
        for (String line : admin.callString("INFO", "cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return seconds;
    }

    /**
     * Commands Redis has run so far, every one but {@code INFO}, and of them the script and function calls
     * ({@code EVALSHA}, {@code EVAL}, {@code FCALL}): the {@code calls} of {@code INFO commandstats}.
     */
    static long[] redisCommands(RespClient admin) {
        long commands = 0;
        long scripts = 0;
        for (String line : admin.callString("INFO", "commandstats").split("\r?\n")) {
            if (!line.startsWith("cmdstat_") || line.startsWith("cmdstat_info:")) {
                continue;
            }
            int start = line.indexOf("calls=") + "calls=".length();
            long calls = Long.parseLong(line.substring(start, line.indexOf(',', start)));
            commands += calls;
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")
                    || line.startsWith("cmdstat_fcall:")) {
                scripts += calls;
            }
        }
        return new long[] { commands, scripts };
    }

    /**
     * Script and function calls Redis has run so far: the {@code calls} of {@code EVALSHA}, {@code EVAL} and
     * {@code FCALL} in {@code INFO commandstats}.
     */
    static long redisScriptCalls(RespClient admin) {
        long calls = 0;
        for (String line : admin.callString("INFO", "commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")
                    || line.startsWith("cmdstat_fcall:")) {
                int start = line.indexOf("calls=") + "calls=".length();
                calls += Long.parseLong(line.substring(start, line.indexOf(',', start)));
            }
        }
        return calls;
    }
}
