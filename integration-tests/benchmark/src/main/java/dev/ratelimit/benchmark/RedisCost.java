package dev.ratelimit.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.IntFunction;

import org.jboss.logging.Logger;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.backend.KeyOverride;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.backend.redis.RedisBackend;
import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;
import dev.ratelimit.runtime.backend.redis.transport.BatchFormat;
import dev.ratelimit.runtime.backend.redis.transport.LuaScriptExecutor;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.policy.CountedOutcomes;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.test.redis.RespClient;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Redis;

/**
 * What each script costs Redis: {@code usec_per_call} from {@code INFO commandstats} while only that script runs
 * (ours as the limiter sends it: {@code FCALL} of its function where the application loaded the function library,
 * else {@code EVALSHA}; the anchors {@code EVALSHA}), and {@code MEMORY USAGE} of the keys one identity leaves behind. Our
 * scripts run through the real backend; each is compared with a simple textbook script for the
 * same algorithm (resources {@code anchors/*.lua}).
 */
final class RedisCost {

    private static final Logger LOG = Logger.getLogger(RedisCost.class);

    /** The policy of this suite: a typical API limit, 100 per minute (keys live long enough to be measured). */
    static final int LIMIT = 100;
    static final long WINDOW_MS = 60_000;

    /** The key of the memory measurement: a realistic one (client address, short policy name). */
    static final String MEMORY_KEY = "rl:{203.0.113.7}:api";

    /** One line of the cost table. */
    record Row(String algorithm, String anchor, double oursMicros, double oursBatchedMicros, double anchorMicros,
            long oursBytes1, long anchorBytes1, long oursBytes100, long anchorBytes100, long oursKeys, long anchorKeys) {
    }

    /** Decisions per run of the batch script in the batched measurement: the default {@code max-batch}. */
    static final int BATCH = 16;

    /** Rounds per script, ours and the anchor alternating; the median is reported. */
    static final int ROUNDS = 5;
    /** Calls per round. */
    static final int CALLS = 10_000;

    private final DefaultRateLimiter limiter;
    private final LuaScriptExecutor executor;
    private final LuaScriptRegistry scripts;
    private final Redis redis;
    private final RespClient admin;
    private final String host;
    private final int port;
    private final int keys;
    /** Whether the limiter calls the scripts' functions (see {@code quarkus.ratelimit.redis.functions}). */
    private final boolean functions = org.eclipse.microprofile.config.ConfigProvider.getConfig()
            .getOptionalValue("quarkus.ratelimit.redis.functions", Boolean.class).orElse(true);

    RedisCost(DefaultRateLimiter limiter, LuaScriptExecutor executor, LuaScriptRegistry scripts, Redis redis,
            RespClient admin, int keys) {
        this.limiter = limiter;
        this.executor = executor;
        this.scripts = scripts;
        this.redis = redis;
        this.admin = admin;
        this.host = admin.host();
        this.port = admin.port();
        this.keys = keys;
    }

    List<Row> measure() {
        if (functions && scripts.library() != null) {
            awaitLibrary(scripts.library().name());
        }
        List<Row> rows = new ArrayList<>();
        rows.add(floor());
        for (Algorithm algorithm : Contenders.RATE_ALGORITHMS) {
            rows.add(measure(algorithm, Variant.PLAIN));
        }
        // what overrides=true costs a policy: without an override stored, and with one for every key
        for (Algorithm algorithm : List.of(Algorithm.TOKEN_BUCKET, Algorithm.FIXED_WINDOW)) {
            rows.add(measure(algorithm, Variant.OVERRIDES));
            rows.add(measure(algorithm, Variant.OVERRIDDEN));
        }
        admin.call("FLUSHALL");
        return rows;
    }

    /** The algorithm column of the floor's row; it has no anchor. */
    static final String FLOOR = "floor: GET/SET";

    /**
     * The floor (see {@link Floors}): one {@code GET} and one {@code SET ... PX} of the key per decision, one call per
     * decision and {@link #BATCH} per run as ours are, its keys given the policy's window to live as ours live (they
     * are created once, not once per TTL). What ours costs beyond it is its own.
     */
    private Row floor() {
        LuaScript one = Floors.script("get-set-one.lua");
        LuaScript batch = Floors.script("get-set-batch.lua");
        String[] ids = Contenders.identities(keys);
        String[] floorKeys = new String[keys];
        for (int i = 0; i < keys; i++) {
            floorKeys[i] = "floor:{" + ids[i] + "}";
        }
        String ttl = Long.toString(WINDOW_MS);
        String[] oneArgs = { ttl, "1" };
        String[] batchArgs = new String[2 + BATCH];
        batchArgs[0] = Integer.toString(BATCH);
        batchArgs[1] = ttl;
        for (int b = 0; b < BATCH; b++) {
            batchArgs[2 + b] = "1";
        }
        IntFunction<String[]> batchKeys = i -> {
            String[] k = new String[BATCH];
            for (int b = 0; b < BATCH; b++) {
                k[b] = floorKeys[(i * BATCH + b) % keys];
            }
            return k;
        };
        List<Double> oneRounds = new ArrayList<>(), batchedRounds = new ArrayList<>();
        Runnable none = () -> {
        };
        for (int r = 0; r < ROUNDS; r++) {
            oneRounds.add(usecPerCall(one, i -> new String[] { floorKeys[i] }, i -> oneArgs, CALLS, none));
            batchedRounds.add(usecPerCall(batch, batchKeys, i -> batchArgs, CALLS / BATCH, none) / BATCH);
        }
        double oneMicros = median(oneRounds), batchedMicros = median(batchedRounds);
        LOG.infof("Redis cost %-22s %.2f us/call (%.2f per decision in batches of %d) (rounds %s / %s)", FLOOR,
                oneMicros, batchedMicros, BATCH, oneRounds, batchedRounds);
        return new Row(FLOOR, "—", oneMicros, batchedMicros, 0, 0, 0, 0, 0, 0, 0);
    }

    /** A policy as it is measured: plain, with {@code overrides=true}, and with an override stored for every key. */
    enum Variant {
        PLAIN(""),
        OVERRIDES(" (overrides=true)"),
        OVERRIDDEN(" (overrides=true, every key overridden)");

        final String label;

        Variant(String label) {
            this.label = label;
        }
    }

    private Row measure(Algorithm algorithm, Variant variant) {
        Anchor anchor = Anchor.forAlgorithm(algorithm);
        Policy policy = new Policy("api", algorithm, LIMIT, Duration.ofMillis(WINDOW_MS), LIMIT, "ip", false,
                FailureMode.LOCAL, List.of(), List.of(), Duration.ZERO, CountedOutcomes.ALL,
                variant != Variant.PLAIN);
        String[] ids = Contenders.identities(keys);

        // what the real backend sends for this policy, replayed by a pipelining client
        Captured ours = capture(policy);
        String[] ourKeys = new String[keys];
        for (int i = 0; i < keys; i++) {
            ourKeys[i] = "rl:{" + ids[i] + "}:" + policy.name();
        }
        // the same decisions as the limiter sends them under load: BATCH per run of the algorithm's batch script
        LuaScript batch = scripts.batchForAlgorithm(algorithm);
        // laid out as in batch.lua: the calls, the policy named once (its five fixed values), then per call its
        // number of keys, time, mode, the policy's index and the cost; ours.args is time, mode, five values, cost
        String[] batchArgs = new String[2 + 5 + BATCH * 5];
        batchArgs[0] = Integer.toString(BATCH);
        batchArgs[1] = "1";
        System.arraycopy(ours.args, 2, batchArgs, 2, 5);
        for (int b = 0; b < BATCH; b++) {
            int at = 7 + b * 5;
            batchArgs[at] = "1";
            batchArgs[at + 1] = ours.args[0];
            batchArgs[at + 2] = ours.args[1];
            batchArgs[at + 3] = "1";
            batchArgs[at + 4] = ours.args[7];
        }
        IntFunction<String[]> batchKeys = i -> {
            String[] k = new String[BATCH];
            for (int b = 0; b < BATCH; b++) {
                k[b] = ourKeys[(i * BATCH + b) % keys];
            }
            return k;
        };
        // every key's override, written after each FLUSHALL: the policy's own limit, so the decisions are alike
        Runnable overridden = variant != Variant.OVERRIDDEN ? () -> {
        } : () -> {
            String stored = new KeyOverride(LIMIT, 0, 0, 0, null).stored();
            for (String k : ourKeys) {
                admin.call("SET", k + RedisKeys.OVERRIDE, stored);
            }
        };
        List<Double> oursRounds = new ArrayList<>(), batchedRounds = new ArrayList<>(), anchorRounds = new ArrayList<>();
        for (int r = 0; r < ROUNDS; r++) {
            oursRounds.add(usecPerCall(ours.script, i -> new String[] { ourKeys[i] }, i -> ours.args, CALLS,
                    overridden));
            batchedRounds.add(usecPerCall(batch, batchKeys, i -> batchArgs, CALLS / BATCH, overridden) / BATCH);
            anchorRounds.add(usecPerCall(anchor.script, i -> anchor.keys.apply("anchor:{" + ids[i] + "}:api",
                    System.currentTimeMillis()), i -> anchor.args.apply(System.currentTimeMillis()), CALLS, () -> {
                    }));
        }
        double oursMicros = median(oursRounds), batchedMicros = median(batchedRounds), anchorMicros = median(anchorRounds);

        long[] ourMemory = memory(oursOperation(policy));
        long[] anchorMemory = memory(anchor.operation(executor, i -> MEMORY_KEY));
        LOG.infof("Redis cost %-22s ours %.2f us/call (%.2f per decision in batches of %d) %d B/key, anchor %s %.2f "
                + "us/call %d B (rounds %s / %s / %s)", algorithm.configName() + variant.label, oursMicros,
                batchedMicros, BATCH, ourMemory[0], anchor.name, anchorMicros, anchorMemory[0], oursRounds,
                batchedRounds, anchorRounds);
        return new Row(algorithm.configName() + variant.label, anchor.name, oursMicros, batchedMicros,
                anchorMicros, ourMemory[0], anchorMemory[0], ourMemory[1], anchorMemory[1], ourMemory[2],
                anchorMemory[2]);
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }

    private record Captured(LuaScript script, String[] args) {
    }

    /** The script and arguments the real backend sends for one decision of this policy. */
    private Captured capture(Policy policy) {
        LuaScript[] script = new LuaScript[1];
        String[][] args = new String[1][];
        LuaScriptExecutor capturing = new LuaScriptExecutor(null, new io.vertx.redis.client.RedisOptions()) { // never sends: execute is replaced
            @Override
            public <T> Uni<T> execute(LuaScript s, LuaScript batch, BatchFormat format, Object tag,
                    String[] k, String[] a, java.util.function.Function<io.vertx.redis.client.Response, T> convert) {
                script[0] = s;
                args[0] = a;
                return Uni.createFrom().nothing();
            }
        };
        new RedisBackend(capturing, scripts, false)
                .decide(new Policy[] { policy }, new String[] { MEMORY_KEY }, new long[] { 1 }, RateLimitBackend.BACKEND_CLOCK,
                        false)
                .subscribe().with(ignored -> {
                });
        return new Captured(script[0], args[0]);
    }

    /** Our script through the real backend, for the memory measurement. */
    private Operation oursOperation(Policy policy) {
        Policy[] ps = { policy };
        long[] costs = { 1 };
        RateLimitBackend backend = limiter.backend();
        return (k, done) -> backend.decide(ps, new String[] { MEMORY_KEY }, costs, RateLimitBackend.BACKEND_CLOCK, false)
                .subscribe().with(r -> done.ok(), done::failed);
    }

    /**
     * Waits (up to 30 s) for the application to have loaded its function library, which it does in the background
     * when it starts: measuring at once raced it, and a first {@code FCALL} met "Function not found".
     */
    private void awaitLibrary(String name) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!admin.call("FUNCTION", "LIST", "LIBRARYNAME", name).toString().contains(name)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the application did not load its function library " + name);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * Runs {@code calls} calls of one script, pipelined 50 at a time from one connection, after a pass
     * that creates every key (steady state, not first use), and reads what one call cost Redis: one {@code FCALL} of
     * the script's function when the limiter calls functions, else one {@code EVALSHA}.
     */
    private double usecPerCall(LuaScript script, IntFunction<String[]> keysOf, IntFunction<String[]> argsOf, int calls,
            Runnable afterFlush) {
        admin.call("FLUSHALL");
        afterFlush.run();
        admin.callString("SCRIPT", "LOAD", script.body());
        String command = functions && script.function() != null ? "fcall" : "evalsha";
        try (RespPipe pipe = new RespPipe(host, port)) {
            run(pipe, script, keysOf, argsOf, Math.min(keys, calls));
            admin.call("CONFIG", "RESETSTAT");
            run(pipe, script, keysOf, argsOf, calls);
        }
        String stats = admin.callString("INFO", "commandstats");
        for (String line : stats.split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
                    if (field.startsWith("usec_per_call=")) {
                        return Double.parseDouble(field.substring("usec_per_call=".length()));
                    }
                }
            }
        }
        throw new IllegalStateException("No cmdstat_" + command + " in INFO commandstats:\n" + stats);
    }

    private void run(RespPipe pipe, LuaScript script, IntFunction<String[]> keysOf, IntFunction<String[]> argsOf,
            int calls) {
        for (int i = 0; i < calls; i++) {
            String[] k = keysOf.apply(i % keys);
            String[] a = argsOf.apply(i);
            String[] cmd = new String[3 + k.length + a.length];
            boolean function = functions && script.function() != null;
            cmd[0] = function ? "FCALL" : "EVALSHA";
            cmd[1] = function ? script.function() : script.sha();
            cmd[2] = Integer.toString(k.length);
            System.arraycopy(k, 0, cmd, 3, k.length);
            System.arraycopy(a, 0, cmd, 3 + k.length, a.length);
            pipe.send(cmd);
            if (i % 50 == 49) {
                pipe.sync();
            }
        }
        pipe.sync();
    }

    /** Bytes held for one identity after 1 and after 100 decisions, and the number of keys. */
    private long[] memory(Operation op) {
        admin.call("FLUSHALL");
        long[] out = new long[3];
        for (int i = 1; i <= 100; i++) {
            java.util.concurrent.CompletableFuture<Throwable> f = new java.util.concurrent.CompletableFuture<>();
            op.call(0, new Operation.Done() {
                @Override
                public void decided(boolean admitted) {
                    f.complete(null);
                }

                @Override
                public void failed(Throwable failure) {
                    f.complete(failure == null ? new IllegalStateException("fallback") : failure);
                }
            });
            Throwable t = f.join();
            if (t != null) {
                throw new IllegalStateException("Decision failed", t);
            }
            if (i == 1 || i == 100) {
                long bytes = 0;
                @SuppressWarnings("unchecked")
                List<Object> names = (List<Object>) admin.call("KEYS", "*");
                for (Object name : names) {
                    bytes += (Long) admin.call("MEMORY", "USAGE", (String) name, "SAMPLES", "0");
                }
                out[i == 1 ? 0 : 1] = bytes;
                out[2] = names.size();
            }
        }
        return out;
    }

    /** A simple script for the same algorithm, and how to call it. */
    private static final class Anchor {
        final String name;
        final LuaScript script;
        final BiFunction<String, Long, String[]> keys;
        final java.util.function.Function<Long, String[]> args;

        private Anchor(String name, String file, BiFunction<String, Long, String[]> keys,
                java.util.function.Function<Long, String[]> args) {
            this.name = name;
            String body = resource("/anchors/" + file);
            this.script = new LuaScript("anchor/" + name, body, LuaScript.sha1(body));
            this.keys = keys;
            this.args = args;
        }

        static Anchor forAlgorithm(Algorithm a) {
            String limit = Integer.toString(LIMIT);
            String windowMs = Long.toString(WINDOW_MS);
            long interval = WINDOW_MS * 1000 / LIMIT;
            switch (a) {
                case FIXED_WINDOW:
                    return new Anchor("GET/INCR/PEXPIRE", "fixed-window.lua",
                            (k, nowMs) -> new String[] { k + ":" + nowMs / WINDOW_MS },
                            nowMs -> new String[] { limit, windowMs });
                case SLIDING_WINDOW_LOG:
                    return new Anchor("sorted-set log", "sliding-window-log.lua", (k, nowMs) -> new String[] { k },
                            nowMs -> new String[] { limit, Long.toString(WINDOW_MS * 1000) });
                case SLIDING_WINDOW_COUNTER:
                    return new Anchor("two-key counter", "sliding-window-counter.lua",
                            (k, nowMs) -> new String[] { k + ":" + nowMs / WINDOW_MS, k + ":" + (nowMs / WINDOW_MS - 1) },
                            nowMs -> new String[] { limit, windowMs, Long.toString(nowMs % WINDOW_MS) });
                case GCRA:
                    return new Anchor("one-key GCRA", "gcra.lua", (k, nowMs) -> new String[] { k },
                            nowMs -> new String[] { Long.toString(interval), Long.toString(interval * LIMIT) });
                default: // token bucket, and the leaky bucket (a meter: the same state, the same writes)
                    return new Anchor("two-key token bucket (SCG)", "token-bucket.lua",
                            (k, nowMs) -> new String[] { k + ":tokens", k + ":ts" },
                            nowMs -> new String[] { Double.toString(LIMIT * 1000.0 / WINDOW_MS), limit, "", "1" });
            }
        }

        Operation operation(LuaScriptExecutor executor, IntFunction<String> key) {
            return (k, done) -> {
                long nowMs = System.currentTimeMillis();
                executor.execute(script, keys.apply(key.apply(k), nowMs), args.apply(nowMs)).subscribe()
                        .with(r -> done.ok(), done::failed);
            };
        }
    }

    static String resource(String path) {
        try (InputStream in = RedisCost.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("Missing resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
