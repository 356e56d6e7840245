package dev.ratelimit.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

/** The CPUs a process may run on ({@code Cpus_allowed_list} of {@code /proc/<pid>/status}), as taskset sets them. */
final class Affinity {

    private Affinity() {
    }

    /** The CPUs of process {@code pid}; empty when unknown (not Linux, no such process). */
    static Set<Integer> ofProcess(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return parse(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or gone
        }
        return Set.of();
    }

    /** {@code 0-3,6} as a set. */
    static Set<Integer> parse(String list) {
        Set<Integer> out = new TreeSet<>();
        for (String part : list.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            int dash = p.indexOf('-');
            int from = Integer.parseInt(dash < 0 ? p : p.substring(0, dash));
            int to = dash < 0 ? from : Integer.parseInt(p.substring(dash + 1));
            for (int c = from; c <= to; c++) {
                out.add(c);
            }
        }
        return out;
    }

    /** A set as taskset lists it, e.g. {@code 0-1}. */
    static String format(Set<Integer> cpus) {
        StringBuilder sb = new StringBuilder();
        Integer start = null;
        Integer prev = null;
        for (Integer c : new TreeSet<>(cpus)) {
            if (prev != null && c == prev + 1) {
                prev = c;
                continue;
            }
            if (start != null) {
                sb.append(sb.length() == 0 ? "" : ",").append(start.equals(prev) ? "" + start : start + "-" + prev);
            }
            start = c;
            prev = c;
        }
        if (start != null) {
            sb.append(sb.length() == 0 ? "" : ",").append(start.equals(prev) ? "" + start : start + "-" + prev);
        }
        return sb.toString();
    }
}
