package dev.ratelimit.deployment.health;

import static io.restassured.RestAssured.given;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.deployment.resilience.OwnRedis;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.path.json.JsonPath;

/** Reading the rate limiter's entry of {@code /q/health/ready}. */
final class Readiness {

    private Readiness() {
    }

    /** An application deciding on {@code redis}, with a short Redis timeout, SmallRye Health and one policy. */
    static QuarkusUnitTest on(RedisServerProcess redis) {
        return new QuarkusUnitTest()
                .withApplicationRoot(jar -> jar.addClasses(OwnRedis.class, Readiness.class))
                .overrideConfigKey("quarkus.redis.hosts", redis.uri())
                .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
                .overrideConfigKey("quarkus.http.test-port", "0")
                .overrideConfigKey("quarkus.ratelimit.redis.timeout", "300ms")
                .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "10")
                .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m");
    }

    /** The HTTP status of the readiness endpoint and the rate limiter's check in it. */
    record Seen(int status, String state, Map<String, Object> data) {
    }

    static Seen now() {
        io.restassured.response.Response r = given().get("/q/health/ready");
        JsonPath json = r.jsonPath();
        List<Map<String, Object>> checks = json.getList("checks");
        for (Map<String, Object> c : checks) {
            if ("Rate limiter".equals(c.get("name"))) {
                @SuppressWarnings("unchecked")
                Map<String, Object> data = (Map<String, Object>) c.get("data");
                return new Seen(r.statusCode(), (String) c.get("status"), data);
            }
        }
        throw new AssertionError("no 'Rate limiter' check in " + r.asString());
    }

    /** Polls until the check's data says {@code redis} starts with {@code prefix} (bounded); the last reading. */
    static Seen awaitRedis(String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        Seen s;
        do {
            s = now();
            if (String.valueOf(s.data().get("redis")).startsWith(prefix)) {
                return s;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        return s;
    }
}
