package dev.ratelimit.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * CPU time of this JVM's JIT compiler threads, apart from the rest of the process. On a shared 2-core machine a cell
 * that runs while C2 still compiles its hot paths pays for the compiler out of its own CPU per decision; a profile
 * once found the JIT at a third of ours' JVM CPU against a fifth of the floor's. Counted apart, the JVM CPU of a
 * cell can be read with and without it.
 * <p>
 * Linux only: the compiler threads are not Java threads one can name through {@code ThreadMXBean}, so they are found
 * in {@code /proc/self/task/<tid>/comm} (the thread name cut to 15 characters: {@code C1 CompilerThre}, {@code C2
 * CompilerThre}) and their {@code utime + stime} read from {@code /proc/self/task/<tid>/stat}, in clock ticks
 * ({@code getconf CLK_TCK}, 100 on every common kernel: 10 ms a tick). Elsewhere {@link #available()} is false and
 * the figures are n/a. HotSpot starts and stops compiler threads as the queue grows and shrinks
 * ({@code UseDynamicNumberOfCompilerThreads}): a thread that ends within a cell takes what it spent there with it, so
 * the figure is a floor; on 2 cores the JVM keeps one C1 and one C2 thread, which do not end.
 */
final class JitCpu {

    private static final Path TASKS = Paths.get("/proc/self/task");
    private static final long TICK_NANOS = TimeUnit.SECONDS.toNanos(1) / clockTicksPerSecond();
    private static final boolean AVAILABLE = Files.isDirectory(TASKS) && !threads().isEmpty();

    private JitCpu() {
    }

    /** Whether the compiler threads' CPU can be read here (Linux). */
    static boolean available() {
        return AVAILABLE;
    }

    /** The length of a clock tick, the resolution of the figures, in milliseconds (10 at 100 ticks a second). */
    static double tickMillis() {
        return TICK_NANOS / 1e6;
    }

    /**
     * The CPU time each compiler thread has used so far, in clock ticks, by thread id; empty when not
     * {@link #available()}.
     */
    static Map<String, Long> snapshot() {
        return AVAILABLE ? threads() : Map.of();
    }

    /**
     * The CPU time the compiler threads used between two snapshots, in nanoseconds (a thread born in between counts
     * from zero); -1 when not {@link #available()}.
     */
    static long nanosBetween(Map<String, Long> start, Map<String, Long> end) {
        if (!AVAILABLE) {
            return -1;
        }
        long ticks = 0;
        for (Map.Entry<String, Long> e : end.entrySet()) {
            ticks += Math.max(0, e.getValue() - start.getOrDefault(e.getKey(), 0L));
        }
        return ticks * TICK_NANOS;
    }

    /** utime + stime of every compiler thread of this process, in ticks, by thread id. */
    private static Map<String, Long> threads() {
        Map<String, Long> out = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                try {
                    String comm = Files.readString(task.resolve("comm")).trim();
                    if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
                        out.put(task.getFileName().toString(), ticks(Files.readString(task.resolve("stat"))));
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended while listed: it no longer counts
                }
            }
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        return out;
    }

    /**
     * utime + stime of a {@code stat} line: fields 14 and 15, counted after the command name, which is in parentheses
     * and may itself hold spaces and parentheses (hence from the last {@code ')'}).
     */
    static long ticks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        // f[0] is field 3 (state): utime is field 14, stime field 15
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /** {@code getconf CLK_TCK}, or 100 (the value of every common Linux build) when it cannot be run. */
    private static long clockTicksPerSecond() {
        if (!Files.isDirectory(TASKS)) {
            return 100;
        }
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            try (InputStream in = p.getInputStream()) {
                String out = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
                p.waitFor(5, TimeUnit.SECONDS);
                long ticks = Long.parseLong(out);
                return ticks > 0 ? ticks : 100;
            }
        } catch (IOException | RuntimeException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
