package dev.ratelimit.benchmark;

import dev.ratelimit.test.redis.RedisServerProcess;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * Entry point: starts a redis-server on loopback (the real 7.0 binary shipped in
 * {@code org.signal:embedded-redis}) unless {@code -Dbench.redis.url} names one, points the Quarkus
 * Redis client at it, then boots the application, which runs the benchmark and exits.
 */
@QuarkusMain
public class BenchmarkMain {

    public static void main(String... args) {
        if (System.getProperty("quarkus.redis.hosts") == null) {
            String url = System.getProperty("bench.redis.url", "");
            if (url.isBlank()) {
                // no persistence (set by the wrapper); a shutdown hook stops it when the run ends
                RedisServerProcess redis = new RedisServerProcess().start();
                url = redis.uri();
            }
            System.setProperty("quarkus.redis.hosts", url);
        }
        if (System.getProperty("quarkus.http.port") == null) {
            System.setProperty("quarkus.http.port", Integer.toString(RedisServerProcess.freePort()));
        }
        Quarkus.run(BenchmarkApplication.class, args);
    }
}
