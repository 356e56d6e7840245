package dev.ratelimit.benchmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jboss.logging.Logger;

import dev.ratelimit.runtime.metrics.RateLimitMetrics.Outcome;

/**
 * Drives the application's endpoints with {@code wrk} (a real HTTP load generator, in its own
 * process): the same resource with and without {@code @RateLimit}, in one run. Per key set, after a
 * warm-up of both endpoints, they are measured in rounds of A/B/B/A (unlimited, limited, limited, unlimited), so
 * a drift of the machine over a round's four runs weighs on both alike; the report compares the endpoints round by
 * round and gives the median round with the range.
 * <p>
 * Layouts ({@code bench.http.layout}): {@code shared}, Redis, this JVM and wrk on whatever cores the
 * machine gives them; {@code pinned}, Redis on cores of its own and this JVM and wrk on the others
 * (the command pins them, see {@code run-http.sh}; this class checks it and fails otherwise). With
 * Redis on its own core the difference between the endpoints is the limiter's cost to the
 * application, not Redis' share of a core the application needs.
 */
final class HttpBench {

    private static final Logger LOG = Logger.getLogger(HttpBench.class);

    /** wrk's Lua hook sending one of {@code keys} client ids per request, for the spread key set. */
    private static final String KEYS_SCRIPT = """
            local n = %d
            request = function()
              return wrk.format(nil, nil, { ["X-Client"] = "c" .. math.random(n) })
            end
            """;

    /**
     * One wrk run, with what it cost: CPU of this JVM and of Redis per request, and the share of the
     * CPU left idle (-1 where {@code /proc/stat} cannot be read): of the whole machine, and of the
     * cores this JVM may run on. An endpoint that leaves its cores idle is bound by latency, not by
     * CPU. {@code order} is the run's place among its key set's runs (1 to 4 × rounds), {@code round} the A/B/B/A
     * round it is part of; {@code decisions} what the limiter counted over the run, by outcome; {@code redisCalls} the
     * script calls Redis ran meanwhile.
     */
    record Row(String endpoint, String keySet, boolean limited, double requestsPerSecond, double p50Micros,
            double p90Micros, double p99Micros, long non2xx, long errors, double jvmCpuMicros, double redisCpuMicros,
            double idlePercent, String layout, int order, long requests, double appIdlePercent, String decisions,
            long redisCalls, int round) {

        /** How many decisions a Redis script call carried on average over this run (0 when none was made). */
        double decisionsPerCall() {
            return redisCalls > 0 ? (double) requests / redisCalls : 0;
        }
    }

    private final int port;
    private final int connections;
    private final long warmupMillis;
    private final long durationMillis;
    private final int keys;
    private final DoubleSupplier redisCpuSeconds;
    /** Script and function calls Redis has run ({@code EVALSHA}, {@code EVAL} and {@code FCALL}, {@code INFO commandstats}). */
    private final LongSupplier redisScriptCalls;
    private final Layout layout;
    private final DecisionTally tally;
    /** A/B/B/A rounds per key set ({@code bench.repetitions}). */
    private final int rounds;
    /** async-profiler's library ({@code bench.http.profile}), or empty: no profile. */
    private String profiler = "";
    private Path profileDir;

    HttpBench(int port, int connections, long warmupMillis, long durationMillis, int keys, DoubleSupplier redisCpuSeconds,
            LongSupplier redisScriptCalls, Layout layout, DecisionTally tally, int rounds) {
        this.rounds = Math.max(1, rounds);
        this.redisScriptCalls = redisScriptCalls;
        this.port = port;
        this.connections = connections;
        this.warmupMillis = warmupMillis;
        this.durationMillis = durationMillis;
        this.keys = keys;
        this.redisCpuSeconds = redisCpuSeconds;
        this.layout = layout;
        this.tally = tally;
    }

    /**
     * Where the processes run: {@code name} as in {@code bench.http.layout}, the CPUs this JVM (and
     * so wrk, its child) may use, and wrk's threads.
     */
    record Layout(String name, Set<Integer> appCpus, int wrkThreads) {

        static final String SHARED = "shared";
        static final String PINNED = "pinned";

        /**
         * The layout asked for, checked: {@code pinned} needs this JVM on CPUs Redis may not use
         * ({@code redisCpus}, null when Redis is not on this machine) and sized for them
         * ({@code -XX:ActiveProcessorCount}).
         */
        static Layout of(String name, Set<Integer> redisCpus) {
            Set<Integer> app = Affinity.ofProcess(ProcessHandle.current().pid());
            if (PINNED.equals(name)) {
                if (app.isEmpty() || redisCpus == null || redisCpus.isEmpty()) {
                    throw new IllegalStateException("bench.http.layout=pinned needs Linux and Redis on this machine "
                            + "(its CPUs are read from /proc/<pid>/status)");
                }
                Set<Integer> shared = new TreeSet<>(app);
                shared.retainAll(redisCpus);
                if (!shared.isEmpty()) {
                    throw new IllegalStateException("bench.http.layout=pinned, but this JVM may run on CPUs " + app
                            + " and Redis on " + redisCpus + ": start them pinned apart (integration-tests/benchmark/run-http.sh)");
                }
                if (Runtime.getRuntime().availableProcessors() != app.size()) {
                    throw new IllegalStateException("bench.http.layout=pinned: this JVM sees "
                            + Runtime.getRuntime().availableProcessors() + " processors but may run on " + app
                            + "; start it with -XX:ActiveProcessorCount=" + app.size());
                }
                return new Layout(name, app, app.size());
            }
            if (!SHARED.equals(name)) {
                throw new IllegalArgumentException("bench.http.layout is shared or pinned, not " + name);
            }
            return new Layout(name, app, 2);
        }
    }

    /**
     * After each key set's rounds, one more limited run, not counted, sampled by async-profiler
     * ({@code libasyncProfiler.so} at {@code library}, loaded into this JVM with {@code jcmd}): CPU
     * samples of every thread, written as collapsed stacks to {@code dir}.
     */
    HttpBench profiled(String library, Path dir) {
        this.profiler = library;
        this.profileDir = dir;
        return this;
    }

    /** {@code null} when wrk is there, else how to get it. */
    static String missingWrk() {
        try {
            Process p = new ProcessBuilder("wrk", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            p.waitFor(10, TimeUnit.SECONDS);
            return null;
        } catch (IOException e) {
            return "wrk is not installed: apt-get install -y wrk (Debian/Ubuntu), brew install wrk (macOS)";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    List<Row> measure(Path workDir) throws IOException {
        Path script = workDir.resolve("wrk-keys.lua");
        Files.writeString(script, String.format(Locale.ROOT, KEYS_SCRIPT, keys));
        List<Row> rows = new ArrayList<>();
        tally.counting(true);
        rows.addAll(abba("/unlimited", "/limited", "1 client", null));
        rows.addAll(abba("/unlimited", "/limited-leased", "1 client, lease=auto", null));
        rows.addAll(abba("/unlimited", "/limited-keys", keys + " clients", script));
        List<String> undecided = new ArrayList<>();
        for (Row r : rows) {
            if (!r.decisions().startsWith("ok")) {
                undecided.add(r.endpoint() + " (" + r.keySet() + ", run " + r.order() + "): " + r.decisions());
            }
        }
        if (!undecided.isEmpty()) {
            throw new IllegalStateException("Not every limited request was decided by Redis, or an unlimited one was "
                    + "decided: " + String.join("; ", undecided));
        }
        return rows;
    }

    /**
     * Both endpoints warmed up, then measured in rounds of unlimited, limited, limited, unlimited: each round pairs the
     * endpoints close in time, so that the machine's drift between rounds (a shared machine's neighbours, the JIT
     * still compiling) moves both sides of a round's comparison alike.
     */
    private List<Row> abba(String unlimited, String limited, String keySet, Path script) throws IOException {
        wrk(url(unlimited), script, warmupMillis);
        wrk(url(limited), script, warmupMillis);
        List<Row> rows = new ArrayList<>(4 * rounds);
        for (int round = 1; round <= rounds; round++) {
            int first = 4 * (round - 1);
            rows.add(run(unlimited, keySet, false, script, first + 1, round));
            rows.add(run(limited, keySet, true, script, first + 2, round));
            rows.add(run(limited, keySet, true, script, first + 3, round));
            rows.add(run(unlimited, keySet, false, script, first + 4, round));
        }
        if (!profiler.isBlank()) {
            profile(limited, keySet, script);
            profile(unlimited, keySet, script);
        }
        return rows;
    }

    private void profile(String path, String keySet, Path script) throws IOException {
        Files.createDirectories(profileDir);
        // letters, digits and dashes only: async-profiler reads its file name among options split at commas
        // ("1 client, lease=auto" would cut it short)
        String name = ("profile-" + path.substring(1) + "-" + keySet + "-" + layout.name()).replaceAll("[^A-Za-z0-9-]+", "-");
        Path file = profileDir.resolve(name + ".collapsed");
        // quoted: jcmd would read an unquoted option with '=' as one of its own
        jcmd("JVMTI.agent_load", profiler, "\"start,event=cpu,interval=200us,threads\"");
        String out = wrk(url(path), script, durationMillis);
        jcmd("JVMTI.agent_load", profiler, "\"stop,collapsed,file=" + file + "\"");
        LOG.infof("Profile of %s (%s), not counted: %s requests, %s", path, keySet,
                (long) numberOr(out, "(\\d+) requests in", 0), file);
    }

    private String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    private Row run(String path, String keySet, boolean limited, Path script, int order, int round) throws IOException {
        ClosedLoop.sleep(300); // let the last replies and the GC settle
        long[] decided0 = tally.snapshot();
        long jvm0 = ClosedLoop.processCpuNanos();
        double redis0 = redisCpuSeconds.getAsDouble();
        long calls0 = redisScriptCalls.getAsLong();
        long[] machine0 = jiffies(null);
        long[] app0 = jiffies(layout.appCpus());
        String out = wrk(url(path), script, durationMillis);
        long[] machine1 = jiffies(null);
        long[] app1 = jiffies(layout.appCpus());
        double jvmNanos = ClosedLoop.processCpuNanos() - jvm0;
        double redisNanos = (redisCpuSeconds.getAsDouble() - redis0) * 1e9;
        long calls = redisScriptCalls.getAsLong() - calls0;
        long[] decided1 = tally.snapshot();
        long requests = (long) numberOr(out, "(\\d+) requests in", 0);
        Row row = parse(path, keySet, limited, out, requests > 0 ? jvmNanos / requests / 1000 : 0,
                requests > 0 ? redisNanos / requests / 1000 : 0, idle(machine0, machine1), layout.name(), order, requests,
                idle(app0, app1), checkDecisions(limited, requests, decided0, decided1),
                calls, round);
        LOG.infof("HTTP %s %d %-14s %-14s %,10.0f req/s  p50 %,8.0f us  p99 %,8.0f us  non-2xx %d  errors %d  "
                + "CPU/req JVM %.2f Redis %.2f us  idle %.0f%% (app cores %.0f%%)  decisions/call %.1f  decisions: %s",
                layout.name(), order,
                path, keySet, row.requestsPerSecond(), row.p50Micros(), row.p99Micros(), row.non2xx(), row.errors(),
                row.jvmCpuMicros(), row.redisCpuMicros(), row.idlePercent(), row.appIdlePercent(), row.decisionsPerCall(),
                row.decisions());
        return row;
    }

    /**
     * Whether the limiter's counts over a run say what they must: a limited run has every request
     * admitted by Redis ({@code allowed}; wrk counts the requests completed in its time, while up to
     * one per connection was decided and still in flight when it stopped) and no other outcome; an
     * unlimited run has no decision at all. Starts with {@code ok} when so.
     */
    private String checkDecisions(boolean limited, long requests, long[] before, long[] after) {
        String counted = DecisionTally.describe(before, after);
        long allowed = after[Outcome.ALLOWED.ordinal()] - before[Outcome.ALLOWED.ordinal()];
        long total = 0;
        for (int i = 0; i < before.length; i++) {
            total += after[i] - before[i];
        }
        boolean ok = limited ? allowed == total && allowed >= requests && allowed <= requests + connections
                : total == 0;
        return (ok ? "ok: " : "WRONG: ") + counted + " for " + requests + " requests";
    }

    private String wrk(String url, Path script, long millis) throws IOException {
        if (millis <= 0) {
            return "";
        }
        List<String> cmd = new ArrayList<>(List.of("wrk", "-t" + layout.wrkThreads(), "-c" + connections,
                "-d" + Math.max(1, millis / 1000) + "s", "--latency", "--timeout", "5s"));
        if (script != null) {
            cmd.add("-s");
            cmd.add(script.toString());
        }
        cmd.add(url);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(millis + 60_000, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException("wrk did not finish: " + String.join(" ", cmd));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        if (p.exitValue() != 0) {
            throw new IOException("wrk failed (" + p.exitValue() + "): " + out);
        }
        LOG.debugf("%s%n%s", String.join(" ", cmd), out);
        return out;
    }

    private static void jcmd(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("jcmd", Long.toString(ProcessHandle.current().pid())));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || out.contains("rror")) {
                throw new IOException(String.join(" ", cmd) + " failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static double idle(long[] before, long[] after) {
        if (before == null || after == null || after[1] <= before[1]) {
            return -1;
        }
        return 100.0 * (after[0] - before[0]) / (after[1] - before[1]);
    }

    /**
     * Idle (idle + iowait) and total jiffies from {@code /proc/stat}: of all cores ({@code cpus} null),
     * or of these cores; null off Linux.
     */
    private static long[] jiffies(Set<Integer> cpus) {
        try {
            long idle = 0;
            long total = 0;
            for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
                if (!line.startsWith("cpu")) {
                    break;
                }
                String[] f = line.trim().split("\\s+");
                boolean all = f[0].equals("cpu");
                if (cpus == null ? !all : all || !cpus.contains(Integer.valueOf(f[0].substring(3)))) {
                    continue;
                }
                for (int i = 1; i < Math.min(f.length, 9); i++) { // user nice system idle iowait irq softirq steal
                    total += Long.parseLong(f[i]);
                }
                idle += Long.parseLong(f[4]) + Long.parseLong(f[5]);
            }
            return total == 0 ? null : new long[] { idle, total };
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    static Row parse(String path, String keySet, boolean limited, String out, double jvmCpuMicros, double redisCpuMicros,
            double idlePercent, String layout, int order, long requests, double appIdlePercent, String decisions,
            long redisCalls, int round) {
        double rps = number(out, "Requests/sec:\\s+([0-9.]+)");
        long non2xx = (long) numberOr(out, "Non-2xx or 3xx responses:\\s+(\\d+)", 0);
        Matcher errors = Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)")
                .matcher(out);
        long errs = 0;
        if (errors.find()) {
            for (int g = 1; g <= 4; g++) {
                errs += Long.parseLong(errors.group(g));
            }
        }
        return new Row(path, keySet, limited, rps, percentile(out, "50"), percentile(out, "90"), percentile(out, "99"),
                non2xx, errs, jvmCpuMicros, redisCpuMicros, idlePercent, layout, order, requests, appIdlePercent, decisions,
                redisCalls, round);
    }

    /** wrk prints e.g. {@code 99%    1.23ms}; in microseconds. */
    private static double percentile(String out, String p) {
        Matcher m = Pattern.compile("\\s" + p + "%\\s+([0-9.]+)(us|ms|s)").matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("No " + p + "% latency in wrk output:\n" + out);
        }
        double v = Double.parseDouble(m.group(1));
        return switch (m.group(2)) {
            case "us" -> v;
            case "ms" -> v * 1000;
            default -> v * 1_000_000;
        };
    }

    private static double number(String out, String regex) {
        Matcher m = Pattern.compile(regex).matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("Unexpected wrk output (" + regex + "):\n" + out);
        }
        return Double.parseDouble(m.group(1));
    }

    private static double numberOr(String out, String regex, double otherwise) {
        Matcher m = Pattern.compile(regex).matcher(out);
        return m.find() ? Double.parseDouble(m.group(1)) : otherwise;
    }
}
