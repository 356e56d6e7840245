package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisServerProcess;

/**
 * A Redis restart as it happens in production: the packaged application runs as a process of its own under light
 * load (20 requests a second), its redis-server is killed and, a few seconds later, started again on the same port.
 * Decisions must go back to Redis within the circuit breaker's probe interval ({@code open-duration}, 5 s by default)
 * plus one second, every time. With {@code on-failure=fail-closed} and status 503, a 200 means Redis decided.
 */
class RedisRestartProcessIT {

    private static final Duration PROBE_INTERVAL = Duration.ofSeconds(5);
    private static RedisServerProcess redis;
    private static AppProcess app;

    @BeforeAll
    static void start() throws Exception {
        redis = new RedisServerProcess().start();
        app = AppProcess.start(Map.of(
                "QUARKUS_REDIS_HOSTS", redis.uri(),
                "QUARKUS_RATELIMIT_KEY_PREFIX", "restart-" + System.nanoTime(),
                "QUARKUS_RATELIMIT_ON_FAILURE", "fail-closed",
                "QUARKUS_RATELIMIT_FAIL_CLOSED_STATUS", "503",
                "QUARKUS_RATELIMIT_POLICIES_API_LIMIT", "1000000",
                "QUARKUS_LOG_CATEGORY__DEV_RATELIMIT__LEVEL", System.getProperty("restart.log", "INFO")),
                Files.createTempDirectory("ratelimit-restart"), Map.of());
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (redis != null) {
            redis.stop();
        }
    }

    @Test
    void decisionsReturnToRedisWithinTheProbeIntervalAfterEveryRestart() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest orders = HttpRequest.newBuilder(URI.create(app.url("/orders"))).timeout(Duration.ofSeconds(5)).build();
        assertEquals(200, http.send(orders, HttpResponse.BodyHandlers.discarding()).statusCode());
        List<Long> recoveries = new ArrayList<>();
        for (int cycle = 0; cycle < Integer.getInteger("restart.cycles", 3); cycle++) {
            AtomicInteger last = new AtomicInteger();
            redis.kill();
            // light load throughout the outage, as an application would see
            long killedAt = System.nanoTime();
            boolean failedClosed = false;
            while (System.nanoTime() - killedAt < Duration.ofSeconds(3).toNanos()) {
                int status = http.send(orders, HttpResponse.BodyHandlers.discarding()).statusCode();
                failedClosed |= status == 503;
                last.set(status);
                AppProcess.sleep(50);
            }
            assertTrue(failedClosed, "with Redis down the failure mode decides (503)");
            redis.restart();
            long restartedAt = System.nanoTime();
            long backAfter = -1;
            while (System.nanoTime() - restartedAt < Duration.ofSeconds(30).toNanos()) {
                int status = http.send(orders, HttpResponse.BodyHandlers.discarding()).statusCode();
                if (status == 200) {
                    backAfter = (System.nanoTime() - restartedAt) / 1_000_000;
                    break;
                }
                AppProcess.sleep(50);
            }
            recoveries.add(backAfter);
            // once back, it stays back
            for (int i = 0; i < 20 && backAfter >= 0; i++) {
                assertEquals(200, http.send(orders, HttpResponse.BodyHandlers.discarding()).statusCode(),
                        "cycle " + cycle + ": a request after recovery");
                AppProcess.sleep(25);
            }
        }
        System.out.println("Redis restart: decisions back in Redis after " + recoveries + " ms (probe interval "
                + PROBE_INTERVAL.toMillis() + " ms)");
        for (long ms : recoveries) {
            assertTrue(ms >= 0 && ms <= PROBE_INTERVAL.toMillis() + 1_000,
                    () -> "decisions back in Redis after " + recoveries + " ms; at most " + (PROBE_INTERVAL.toMillis()
                            + 1_000) + " ms allowed\n" + app.log());
        }
    }
}
