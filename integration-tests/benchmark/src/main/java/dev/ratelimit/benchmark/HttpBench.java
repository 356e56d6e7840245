package dev.ratelimit.benchmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jboss.logging.Logger;

/**
 * Drives the application's endpoints with {@code wrk} (a real HTTP load generator, in its own
 * process): the same resource with and without {@code @RateLimit}, one after the other in one run.
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
     * machine's CPU left idle (-1 where {@code /proc/stat} cannot be read). An endpoint that leaves
     * the machine idle is bound by latency, not by CPU.
     */
    record Row(String endpoint, String keySet, boolean limited, double requestsPerSecond, double p50Micros,
            double p90Micros, double p99Micros, long non2xx, long errors, double jvmCpuMicros, double redisCpuMicros,
            double idlePercent) {
    }

    private final int port;
    private final int connections;
    private final long warmupMillis;
    private final long durationMillis;
    private final int keys;
    private final DoubleSupplier redisCpuSeconds;

    HttpBench(int port, int connections, long warmupMillis, long durationMillis, int keys, DoubleSupplier redisCpuSeconds) {
        this.port = port;
        this.connections = connections;
        this.warmupMillis = warmupMillis;
        this.durationMillis = durationMillis;
        this.keys = keys;
        this.redisCpuSeconds = redisCpuSeconds;
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
        // pairs, each measured back to back so the machine's state is as alike as it gets
        rows.add(run("/unlimited", "1 client", false, null));
        rows.add(run("/limited", "1 client", true, null));
        rows.add(run("/unlimited", keys + " clients", false, script));
        rows.add(run("/limited-keys", keys + " clients", true, script));
        return rows;
    }

    private Row run(String path, String keySet, boolean limited, Path script) throws IOException {
        String url = "http://127.0.0.1:" + port + path;
        wrk(url, script, warmupMillis);
        long jvm0 = ClosedLoop.processCpuNanos();
        double redis0 = redisCpuSeconds.getAsDouble();
        long[] machine0 = machineJiffies();
        String out = wrk(url, script, durationMillis);
        long[] machine1 = machineJiffies();
        double jvmNanos = ClosedLoop.processCpuNanos() - jvm0;
        double redisNanos = (redisCpuSeconds.getAsDouble() - redis0) * 1e9;
        double requests = numberOr(out, "(\\d+) requests in", 0);
        double idle = -1;
        if (machine0 != null && machine1 != null && machine1[1] > machine0[1]) {
            idle = 100.0 * (machine1[0] - machine0[0]) / (machine1[1] - machine0[1]);
        }
        Row row = parse(path, keySet, limited, out, requests > 0 ? jvmNanos / requests / 1000 : 0,
                requests > 0 ? redisNanos / requests / 1000 : 0, idle);
        LOG.infof("HTTP %-14s %-14s %,10.0f req/s  p50 %,8.0f us  p99 %,8.0f us  non-2xx %d  errors %d  "
                + "CPU/req JVM %.1f Redis %.1f us  idle %.0f%%", path, keySet, row.requestsPerSecond(), row.p50Micros(),
                row.p99Micros(), row.non2xx(), row.errors(), row.jvmCpuMicros(), row.redisCpuMicros(), row.idlePercent());
        return row;
    }

    private String wrk(String url, Path script, long millis) throws IOException {
        if (millis <= 0) {
            return "";
        }
        List<String> cmd = new ArrayList<>(List.of("wrk", "-t2", "-c" + connections,
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

    /** Idle (idle + iowait) and total jiffies of all cores from {@code /proc/stat}, or null off Linux. */
    private static long[] machineJiffies() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < Math.min(f.length, 9); i++) { // user nice system idle iowait irq softirq steal
                total += Long.parseLong(f[i]);
            }
            return new long[] { Long.parseLong(f[4]) + Long.parseLong(f[5]), total };
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    static Row parse(String path, String keySet, boolean limited, String out, double jvmCpuMicros, double redisCpuMicros,
            double idlePercent) {
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
                non2xx, errs, jvmCpuMicros, redisCpuMicros, idlePercent);
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
