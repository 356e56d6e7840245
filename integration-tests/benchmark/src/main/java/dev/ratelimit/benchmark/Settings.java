package dev.ratelimit.benchmark;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * What one run measures, from system properties ({@code -Dbench.*}), with the defaults of the
 * documented command.
 *
 * @param warmupMillis warm-up of every cell, not measured ({@code bench.warmup}, e.g. {@code 3s})
 * @param durationMillis measured time of every cell ({@code bench.duration})
 * @param concurrency concurrent callers to measure ({@code bench.concurrency}, e.g. {@code 1,8,64})
 * @param repetitions how many times each cell of the limiter suite is measured, in rotated order; its row is the
 *        median ({@code bench.repetitions}, at least 1)
 * @param keys size of the spread key set; the other key set is one hot key ({@code bench.keys})
 * @param keySets which key sets the limiter suite runs, in this order ({@code bench.keysets}): {@code hot} (one key),
 *        {@code spread} ({@code keys} keys picked uniformly), {@code zipf} ({@code zipfKeys} keys picked with a Zipf
 *        law of exponent {@code zipfExponent}: a few hot keys and a long tail)
 * @param zipfKeys size of the Zipf key set ({@code bench.zipf.keys})
 * @param zipfExponent exponent of the Zipf law ({@code bench.zipf.exponent})
 * @param suites which parts to run: {@code redis-cost}, {@code limiter}, {@code http} ({@code bench.suites})
 * @param contenders which rows of the limiter suite to run ({@code bench.contenders}; all by default)
 * @param httpConnections wrk connections ({@code bench.http.connections})
 * @param output where the results, the Markdown table and the charts go ({@code bench.output})
 * @param redisUrl an external Redis to use instead of starting the embedded one ({@code bench.redis.url})
 * @param httpLayout where the HTTP suite expects Redis, this JVM and wrk: {@code shared} (on any core) or
 *        {@code pinned} (Redis on cores of its own; see {@code run-http.sh}) ({@code bench.http.layout})
 * @param warmupPass whether the limiter suite first runs every selected contender once for {@code warmupMillis} on
 *        each key set, unmeasured, so that the first measured repetition is not the JIT's ({@code bench.warmup.pass},
 *        {@code true} by default)
 */
record Settings(long warmupMillis, long durationMillis, List<Integer> concurrency, int repetitions, int keys,
        List<String> keySets, int zipfKeys, double zipfExponent, Set<String> suites, Set<String> contenders, int httpConnections, Path output, String redisUrl, String httpLayout,
        boolean warmupPass) {

    static Settings fromSystemProperties() {
        return new Settings(
                millis(System.getProperty("bench.warmup", "3s")),
                millis(System.getProperty("bench.duration", "10s")),
                Arrays.stream(System.getProperty("bench.concurrency", "1,8,64").split(",")).map(String::trim)
                        .map(Integer::valueOf).toList(),
                Math.max(1, Integer.parseInt(System.getProperty("bench.repetitions", "3"))),
                Integer.parseInt(System.getProperty("bench.keys", "10000")),
                keySets(System.getProperty("bench.keysets", "hot,spread")),
                Integer.parseInt(System.getProperty("bench.zipf.keys", "100000")),
                Double.parseDouble(System.getProperty("bench.zipf.exponent", "1.1")),
                set(System.getProperty("bench.suites", "redis-cost,limiter,http")),
                set(System.getProperty("bench.contenders", "")),
                Integer.parseInt(System.getProperty("bench.http.connections", "64")),
                Paths.get(System.getProperty("bench.output", "target/benchmark")).toAbsolutePath().normalize(),
                System.getProperty("bench.redis.url", ""),
                System.getProperty("bench.http.layout", HttpBench.Layout.SHARED),
                Boolean.parseBoolean(System.getProperty("bench.warmup.pass", "true").trim()));
    }

    boolean runs(String suite) {
        return suites.contains(suite);
    }

    /**
     * Whether a limiter-suite row runs: all do unless {@code bench.contenders} names some (by prefix, or the whole
     * name after {@code =}: {@code =ours: token-bucket} is that row alone, as a profile wants it);
     * {@code experiment:} rows and the cluster comparison ({@code cluster:}, {@code one redis:}: a Redis Cluster of
     * three more redis-server processes on the machine, four more rows in every cell group) only when named.
     */
    boolean measures(String contender) {
        if (contenders.isEmpty()) {
            return !contender.startsWith("experiment:") && !contender.startsWith(LimiterSuite.CLUSTER)
                    && !contender.startsWith(LimiterSuite.ONE_REDIS);
        }
        return contenders.stream().anyMatch(c -> c.startsWith("=") ? contender.equals(c.substring(1))
                : contender.startsWith(c));
    }

    /** {@code 250ms}, {@code 10s}, {@code 2m}, or plain milliseconds. */
    static long millis(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.endsWith("ms")) {
            return Long.parseLong(t.substring(0, t.length() - 2));
        }
        if (t.endsWith("s")) {
            return Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1000);
        }
        if (t.endsWith("m")) {
            return Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 60_000);
        }
        return Long.parseLong(t);
    }

    /** The key sets named, in order, each once; an unknown name is refused. */
    private static List<String> keySets(String csv) {
        List<String> out = new java.util.ArrayList<>();
        for (String s : csv.split(",")) {
            String k = s.trim().toLowerCase(Locale.ROOT);
            if (k.isEmpty() || out.contains(k)) {
                continue;
            }
            if (!List.of("hot", "spread", "zipf").contains(k)) {
                throw new IllegalArgumentException("bench.keysets: unknown key set '" + k + "' (hot, spread, zipf)");
            }
            out.add(k);
        }
        return out;
    }

    private static Set<String> set(String csv) {
        Set<String> out = new TreeSet<>();
        for (String s : csv.split(",")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return out;
    }
}
