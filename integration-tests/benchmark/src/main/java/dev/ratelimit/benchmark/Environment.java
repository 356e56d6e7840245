package dev.ratelimit.benchmark;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Set;

import dev.ratelimit.test.redis.RespClient;

/**
 * The machine a run measured, as the results page must state it.
 *
 * @param date when (UTC)
 * @param cpu the CPU model and the cores the JVM sees
 * @param memory total RAM
 * @param os the operating system
 * @param jdk the JVM
 * @param redis the Redis server version and where it ran: its URL, whether this run started it or was given it
 *        ({@code bench.redis.url}), and on this machine the CPUs it may use
 * @param quarkus the Quarkus version
 * @param redisCpus the CPUs Redis may use, null when it is not on this machine
 * @param appCpus the CPUs this JVM (and wrk, its child) may use, empty off Linux
 */
record Environment(String date, String cpu, String memory, String os, String jdk, String redis, String quarkus,
        Set<Integer> redisCpus, Set<Integer> appCpus) {

    /** {@code redisUrl}: where this run's Redis is; {@code external}: given by {@code bench.redis.url}, not started here. */
    static Environment describe(RespClient redis, String quarkusVersion, String redisUrl, boolean external) {
        String info = redis.callString("INFO", "server");
        String version = field(info, "redis_version");
        Set<Integer> redisCpus = null;
        String host = URI.create(redisUrl).getHost();
        if ("127.0.0.1".equals(host) || "localhost".equals(host) || "::1".equals(host)) {
            redisCpus = Affinity.ofProcess(Long.parseLong(field(info, "process_id")));
        }
        Set<Integer> appCpus = Affinity.ofProcess(ProcessHandle.current().pid());
        String where = redisUrl + (external ? " (bench.redis.url, started outside this run)" : " (started by this run)")
                + (redisCpus == null ? ", another machine"
                        : redisCpus.isEmpty() ? ", this machine"
                                : ", this machine, on CPU " + Affinity.format(redisCpus) + " (this JVM and wrk on CPU "
                                        + Affinity.format(appCpus) + ", " + Runtime.getRuntime().availableProcessors()
                                        + " processors seen by the JVM)");
        return new Environment(
                ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")),
                cpuModel() + ", " + Runtime.getRuntime().availableProcessors() + " cores",
                totalMemory(),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                "Redis " + version + " (" + field(info, "multiplexing_api") + "), " + where,
                quarkusVersion, redisCpus, appCpus);
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return "?";
    }

    private static String cpuModel() {
        return procLine("/proc/cpuinfo", "model name").orElse(System.getProperty("os.arch"));
    }

    private static String totalMemory() {
        return procLine("/proc/meminfo", "MemTotal").map(v -> {
            long kb = Long.parseLong(v.replaceAll("[^0-9]", ""));
            return String.format("%.0f GiB", kb / 1024.0 / 1024.0);
        }).orElse("?");
    }

    private static java.util.Optional<String> procLine(String file, String key) {
        try {
            List<String> lines = Files.readAllLines(Paths.get(file));
            return lines.stream().filter(l -> l.startsWith(key)).findFirst()
                    .map(l -> l.substring(l.indexOf(':') + 1).trim());
        } catch (IOException | RuntimeException e) {
            return java.util.Optional.empty();
        }
    }
}
