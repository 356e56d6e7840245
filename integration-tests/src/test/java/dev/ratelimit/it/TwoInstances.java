package dev.ratelimit.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.ratelimit.test.redis.RedisServerProcess;

/**
 * Two instances of the packaged application on one real redis-server of their own, started before a process test
 * class's tests and stopped after them; keys under a prefix of the class's own; a Redis timeout of 5 s.
 */
abstract class TwoInstances {

    static RedisServerProcess redis;
    static final List<AppProcess> apps = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @BeforeAll
    static void startTwoInstances() throws Exception {
        redis = new RedisServerProcess().start();
        // these tests are about what Redis decides: a call slowed past the default 250 ms by a loaded host must not
        // be answered by a failure mode instead
        apps.addAll(AppProcess.instances(2, redis.uri(), "two-" + System.nanoTime(),
                Map.of("QUARKUS_RATELIMIT_REDIS_TIMEOUT", "5s")));
    }

    /** A request of {@code method} to {@code url}, with headers given as name, value, name, value... */
    HttpResponse<String> send(String method, String url, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).method(method,
                HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10));
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** An {@code Authorization} header's value for HTTP Basic. */
    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Waits, if needed, until at least {@code neededMillis} remain of the current fixed window of {@code windowMillis}
     * (fixed windows start at multiples of the window on the Redis clock; redis-server runs on this host, so its clock
     * is this one), so that a few requests land in one window.
     */
    static void awaitWindowRoom(long windowMillis, long neededMillis) throws InterruptedException {
        long left = windowMillis - System.currentTimeMillis() % windowMillis;
        if (left < neededMillis) {
            Thread.sleep(left + 20);
        }
    }

    @AfterAll
    static void stopTwoInstances() {
        apps.forEach(AppProcess::close);
        apps.clear();
        if (redis != null) {
            redis.stop();
            redis = null;
        }
    }
}
