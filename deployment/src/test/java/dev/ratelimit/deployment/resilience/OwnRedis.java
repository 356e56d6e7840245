package dev.ratelimit.deployment.resilience;

import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.test.redis.RespClient;

/**
 * A redis-server of one test class alone, so that killing or pausing it disturbs no other test.
 * <p>
 * A QuarkusUnitTest class is initialised twice (by JUnit and by the application's class loader): the port is kept in
 * a system property so both see the same server.
 */
public final class OwnRedis {

    private OwnRedis() {
    }

    /** The server of {@code test}, started on first use. */
    public static RedisServerProcess of(Class<?> test) {
        String property = "ratelimit.test.resilience.port." + test.getName();
        String port = System.getProperty(property);
        if (port != null) {
            return new RedisServerProcess(Integer.parseInt(port)).start();
        }
        RedisServerProcess redis = new RedisServerProcess().start();
        System.setProperty(property, Integer.toString(redis.port()));
        return redis;
    }

    /** A field of {@code INFO} (e.g. section {@code commandstats}) of that server, or null. */
    static String info(RedisServerProcess redis, String section, String field) {
        try (RespClient client = redis.client()) {
            return info(client, section, field);
        }
    }

    /** A field of {@code INFO} (e.g. section {@code commandstats}), or null. */
    static String info(RespClient client, String section, String field) {
        for (String line : client.callString("INFO", section).split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1);
            }
        }
        return null;
    }

    /** Calls of a command so far, from {@code INFO commandstats} ({@code cmdstat_evalsha:calls=12,...}). */
    static long calls(RedisServerProcess redis, String command) {
        try (RespClient client = redis.client()) {
            return calls(client, command);
        }
    }

    /** Calls of a command so far, from {@code INFO commandstats} ({@code cmdstat_evalsha:calls=12,...}). */
    static long calls(RespClient client, String command) {
        String stat = info(client, "commandstats", "cmdstat_" + command);
        if (stat == null) {
            return 0;
        }
        for (String part : stat.split(",")) {
            if (part.startsWith("calls=")) {
                return Long.parseLong(part.substring("calls=".length()));
            }
        }
        return 0;
    }

    /** Script calls so far: {@code EVALSHA}, {@code EVAL} and {@code FCALL} (the scripts as functions). */
    static long scriptCalls(RedisServerProcess redis) {
        try (RespClient client = redis.client()) {
            return calls(client, "evalsha") + calls(client, "eval") + calls(client, "fcall");
        }
    }
}
