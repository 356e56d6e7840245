package dev.ratelimit.runtime.algorithm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;

import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.test.redis.RedisFixture;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;

/**
 * Helpers shared by the engine tests: policies, reply accessors, unique keys and the brute-force window counter.
 * <p>
 * Reply layout of both backends: {@code [all admitted (1/0), then per policy: admitted, remaining, retry-after ms
 * (-1 never), reset ms]}.
 */
public final class Engine {

    public static final long MS = 1_000L;
    public static final long S = 1_000_000L;
    /**
     * 2026-01-01T00:00:00Z in microseconds: a multiple of every window the tests use (1 s ... 1 h), so fixed-window
     * boundaries sit at known offsets from it. Explicit times near the real epoch keep the arithmetic realistic.
     */
    public static final long BASE = 1_767_225_600L * S;

    /** Distinguishes the keys of this JVM from those of earlier runs against the same (external) Redis. */
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static final AtomicLong KEYS = new AtomicLong();

    private Engine() {
    }

    /** An application with this class, deciding on the shared Redis of the tests. */
    public static QuarkusUnitTest onSharedRedis() {
        return new QuarkusUnitTest()
                .withApplicationRoot(jar -> jar.addClasses(Engine.class))
                .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
                .overrideConfigKey("quarkus.redis.devservices.enabled", "false");
    }

    /** The rate algorithms; {@code concurrency}, which counts requests in flight, has scenarios of its own. */
    public static Stream<String> algorithms() {
        return Arrays.stream(Algorithm.values()).filter(a -> a != Algorithm.CONCURRENCY).map(Algorithm::configName);
    }

    public static Stream<String> bucketAlgorithms() {
        return Arrays.stream(Algorithm.values()).filter(Algorithm::usesBurst).map(Algorithm::configName);
    }

    public static Algorithm algorithm(String name) {
        Algorithm a = Algorithm.fromConfigName(name);
        if (a == null) {
            throw new IllegalArgumentException(name);
        }
        return a;
    }

    public static Policy policy(String name, Algorithm a, long limit, Duration window, long burst) {
        return new Policy(name, a, limit, window, burst, "global", false, FailureMode.FAIL_CLOSED);
    }

    public static Policy shadow(Policy p) {
        return new Policy(p.name(), p.algorithm(), p.limit(), p.window(), p.burst(), p.key(), true, p.onFailure());
    }

    /** A fresh key in the real layout ({@code <prefix>:{<identity>}:<policy>}), never used before. */
    public static String newKey(String policy) {
        return RedisKeys.key("rlt-" + RUN, policy, "id" + KEYS.incrementAndGet());
    }

    /** A fresh identity (hash tag) to build several keys of one slot with {@link RedisKeys#key}. */
    public static String newIdentity() {
        return RUN + "-" + KEYS.incrementAndGet();
    }

    /**
     * Makes every call from one event-loop task (the first finds nothing in flight and goes alone, the others are
     * gathered behind it into runs) and returns each call's item or failure, in order.
     */
    public static List<Object> inOneEventLoopTask(Vertx vertx, List<Supplier<Uni<?>>> calls) throws Exception {
        List<CompletableFuture<Object>> outcomes = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            outcomes.add(new CompletableFuture<>());
        }
        vertx.getOrCreateContext().runOnContext(v -> {
            for (int i = 0; i < calls.size(); i++) {
                CompletableFuture<Object> outcome = outcomes.get(i);
                calls.get(i).get().subscribe().with(outcome::complete, outcome::complete);
            }
        });
        List<Object> out = new ArrayList<>();
        for (CompletableFuture<Object> o : outcomes) {
            out.add(o.get(10, TimeUnit.SECONDS));
        }
        return out;
    }

    public static String prefix() {
        return "rlt-" + RUN;
    }

    // ---- reply accessors ------------------------------------------------------------------------------------

    public static boolean all(long[] r) {
        return r[0] == 1;
    }

    public static boolean admitted(long[] r, int i) {
        return r[1 + 4 * i] == 1;
    }

    public static long remaining(long[] r, int i) {
        return r[2 + 4 * i];
    }

    public static long retryMs(long[] r, int i) {
        return r[3 + 4 * i];
    }

    public static long resetMs(long[] r, int i) {
        return r[4 + 4 * i];
    }

    public static String show(long[] r) {
        return Arrays.toString(r);
    }

    // ---- brute-force window analysis ------------------------------------------------------------------------

    /** An admitted request: its time and the units it took. */
    public record Admission(long time, long units) {
    }

    /**
     * The most units admitted within any half-open interval {@code [s, s + window)}, by brute force. An optimal
     * interval can always be shifted right until it starts at an admission, so only those starts are tried.
     */
    public static long maxUnitsInAnyWindow(List<Admission> admitted, long window) {
        List<Admission> sorted = new ArrayList<>(admitted);
        sorted.sort(Comparator.comparingLong(Admission::time));
        long max = 0;
        for (int i = 0; i < sorted.size(); i++) {
            long sum = 0;
            for (int j = i; j < sorted.size() && sorted.get(j).time() < sorted.get(i).time() + window; j++) {
                sum += sorted.get(j).units();
            }
            max = Math.max(max, sum);
        }
        return max;
    }

    /** Units admitted in {@code (t - window, t]}: what an exact sliding log counts at time {@code t}. */
    public static long unitsInWindowEndingAt(List<Admission> admitted, long t, long window) {
        long sum = 0;
        for (Admission a : admitted) {
            if (a.time() > t - window && a.time() <= t) {
                sum += a.units();
            }
        }
        return sum;
    }

    /** The most units admitted within one aligned window {@code [k * window, (k + 1) * window)}. */
    public static long maxUnitsInOneAlignedWindow(List<Admission> admitted, long window) {
        return admitted.stream()
                .collect(java.util.stream.Collectors.groupingBy(a -> Math.floorDiv(a.time(), window),
                        java.util.stream.Collectors.summingLong(Admission::units)))
                .values().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    // ---- Redis's own counts -----------------------------------------------------------------------------------

    /** {@code calls=} of {@code cmdstat_<command>} in INFO commandstats (0 when never called). */
    public static long calls(RespClient client, String command) {
        String info = client.callString("INFO", "commandstats");
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                String field = line.substring(line.indexOf("calls=") + 6);
                return Long.parseLong(field.substring(0, field.indexOf(',')));
            }
        }
        return 0;
    }

    /** Script runs Redis executed: {@code EVALSHA}, {@code EVAL} and {@code FCALL} (the scripts as functions). */
    public static long scriptCalls(RespClient client) {
        return calls(client, "evalsha") + calls(client, "eval") + calls(client, "fcall");
    }
}
