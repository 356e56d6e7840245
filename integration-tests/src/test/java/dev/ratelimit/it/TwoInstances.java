package dev.ratelimit.it;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
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
