package dev.ratelimit.deployment.health;

import static io.restassured.RestAssured.given;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.restassured.path.json.JsonPath;

/** Reading the rate limiter's entry of {@code /q/health/ready}. */
final class Readiness {

    private Readiness() {
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
