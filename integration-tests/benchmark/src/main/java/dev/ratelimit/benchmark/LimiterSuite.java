package dev.ratelimit.benchmark;

import java.util.ArrayList;
import java.util.List;

import org.jboss.logging.Logger;

import dev.ratelimit.runtime.DefaultRateLimiter;
import dev.ratelimit.runtime.policy.Algorithm;
import dev.ratelimit.runtime.redis.LuaScript;
import dev.ratelimit.runtime.redis.LuaScriptExecutor;
import dev.ratelimit.runtime.redis.LuaScriptRegistry;
import dev.ratelimit.runtime.redis.RedisBackend;
import dev.ratelimit.test.redis.RespClient;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;

/**
 * Decisions per second and latency of every contender, for each key set and number of callers.
 * Within a cell group (one key set, one number of callers) the contenders run back to back, so the
 * ratios compare measurements taken under the same conditions.
 */
final class LimiterSuite {

    private static final Logger LOG = Logger.getLogger(LimiterSuite.class);

    static final String CEILING = "ceiling: EVALSHA return 1";
    static final String REDISSON = "Redisson RRateLimiter";
    static final String BUCKET4J = "Bucket4j (Lettuce, CAS)";
    static final String OURS = "ours: ";
    static final String BACKEND_ONLY = "diagnostic: backend only, token-bucket";
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

    /** One cell. */
    record Row(String keySet, int keys, int concurrency, String contender, double decisionsPerSecond, double p50,
            double p99, double p999, long failures, double jvmCpuMicros, double redisCpuMicros) {
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
    private final String redisUri;
    private final Vertx vertx;
    private final LuaScriptRegistry scripts;
    private final RespClient admin;

    LimiterSuite(Settings settings, DefaultRateLimiter limiter, LuaScriptExecutor ceilingExecutor, String redisUri,
            Vertx vertx, LuaScriptRegistry scripts, RespClient admin) {
        this.admin = admin;
        this.settings = settings;
        this.limiter = limiter;
        this.ceilingExecutor = ceilingExecutor;
        this.redisUri = redisUri;
        this.vertx = vertx;
        this.scripts = scripts;
    }

    List<Row> measure() {
        List<Row> rows = new ArrayList<>();
        String body = "return 1";
        LuaScript returnOne = new LuaScript("ceiling", body, RedisCost.sha1(body));
        // the Quarkus defaults (max-pool-size 6, max-pool-waiting 24), and a pool sized for 64 callers
        Redis pooledDefault = Redis.createClient(vertx, new RedisOptions().setConnectionString(redisUri)
                .setMaxPoolSize(6).setMaxPoolWaiting(24));
        Redis pooledLarge = Redis.createClient(vertx, new RedisOptions().setConnectionString(redisUri)
                .setMaxPoolSize(64).setMaxPoolWaiting(1024));
        java.util.Map<String, RedisBackend> shapes = new java.util.HashMap<>();
        for (int keys : new int[] { 1, settings.keys() }) {
            String keySet = keys == 1 ? "hot key" : String.format("%,d keys", keys);
            String[] ids = Contenders.identities(keys);
            Contenders.Peer redisson = settings.measures(REDISSON) ? Contenders.redisson(redisUri, ids) : null;
            Contenders.Peer bucket4j = settings.measures(BUCKET4J) ? Contenders.bucket4j(redisUri, ids) : null;
            try {
                for (int concurrency : settings.concurrency()) {
                    if (settings.measures(CEILING)) {
                        rows.add(cell(keySet, keys, concurrency, CEILING,
                                Contenders.ceiling(ceilingExecutor, returnOne, "rl", ids)));
                    }
                    for (Algorithm a : Algorithm.values()) {
                        String name = OURS + a.configName();
                        if (settings.measures(name)) {
                            rows.add(cell(keySet, keys, concurrency, name, Contenders.limiter(limiter, a.configName(), ids)));
                        }
                    }
                    if (settings.measures(BACKEND_ONLY)) {
                        rows.add(cell(keySet, keys, concurrency, BACKEND_ONLY,
                                Contenders.backendOnly(limiter, "token-bucket", ids)));
                    }
                    if (settings.measures(TIMEOUT_VERTX)) {
                        rows.add(cell(keySet, keys, concurrency, TIMEOUT_VERTX,
                                Contenders.backendWithTimeout(limiter, "token-bucket", ids, null)));
                    }
                    if (settings.measures(TIMEOUT_STPE)) {
                        rows.add(cell(keySet, keys, concurrency, TIMEOUT_STPE,
                                Contenders.backendWithTimeout(limiter, "token-bucket", ids, TIMER)));
                    }
                    if (settings.measures(POOLED_DEFAULT)) {
                        rows.add(cell(keySet, keys, concurrency, POOLED_DEFAULT, Contenders.pooledBackend(pooledDefault,
                                scripts, limiter.policies().get("token-bucket"), ids)));
                    }
                    if (settings.measures(POOLED_LARGE)) {
                        rows.add(cell(keySet, keys, concurrency, POOLED_LARGE, Contenders.pooledBackend(pooledLarge,
                                scripts, limiter.policies().get("token-bucket"), ids)));
                    }
                    for (int[] shape : SHAPES) {
                        String name = SHAPE + "max-batch " + shape[0] + ", " + shape[1] + " connections";
                        if (settings.measures(name) && concurrency == settings.concurrency().stream().mapToInt(i -> i).max().getAsInt()) {
                            // one executor per shape for the whole run: an executor keeps its connections
                            RedisBackend backend = shapes.computeIfAbsent(name, n -> new RedisBackend(
                                    new LuaScriptExecutor(pooledLarge, shape[0], shape[1]), scripts, false));
                            rows.add(cell(keySet, keys, concurrency, name,
                                    Contenders.backend(backend, limiter.policies().get("token-bucket"), ids)));
                        }
                    }
                    if (redisson != null) {
                        rows.add(cell(keySet, keys, concurrency, REDISSON, redisson.operation()));
                    }
                    if (bucket4j != null) {
                        rows.add(cell(keySet, keys, concurrency, BUCKET4J, bucket4j.operation()));
                    }
                }
            } finally {
                if (redisson != null) {
                    redisson.close().run();
                }
                if (bucket4j != null) {
                    bucket4j.close().run();
                }
            }
        }
        return rows;
    }

    private Row cell(String keySet, int keys, int concurrency, String contender, Operation op) {
        ClosedLoop.Measurement m = ClosedLoop.run(op, keys, concurrency, settings.warmupMillis(), settings.durationMillis(),
                this::redisCpuSeconds);
        Row row = new Row(keySet, keys, concurrency, contender, m.decisionsPerSecond(), m.micros(50), m.micros(99),
                m.micros(99.9), m.failures(), m.jvmCpuMicrosPerCall(), m.redisCpuMicrosPerCall());
        LOG.infof("%-9s %3d callers  %-34s %,9.0f /s  p50 %,7.0f  p99 %,7.0f  p99.9 %,7.0f us  CPU/call JVM %.1f Redis %.1f us%s",
                keySet, concurrency, contender, row.decisionsPerSecond(), row.p50(), row.p99(), row.p999(),
                row.jvmCpuMicros(), row.redisCpuMicros(),
                m.failures() > 0 ? "  FAILED " + m.failures() + " (" + m.lastFailure() + ")" : "");
        ClosedLoop.sleep(300); // let the last replies and the GC settle before the next contender
        return row;
    }

    /** Redis' own CPU time so far (user + system), in seconds, from {@code INFO cpu}. */
    private double redisCpuSeconds() {
        return redisCpuSeconds(admin);
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
}
