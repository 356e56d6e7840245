package dev.ratelimit.it;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The application has OpenTelemetry: each request the limiter decided carries a {@code ratelimit.decision} event on its
 * server span (read back through the demo's {@code /traces/decisions}), admitted by Redis and then denied, with the
 * policy, what is left and the wait.
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class TracingTest {

    /** The decision events of the request made with query string {@code query}, once its span has ended. */
    private static List<Map<String, Object>> decisionsOf(String query) throws InterruptedException {
        List<Map<String, Object>> events = List.of();
        for (int i = 0; i < 250 && events.isEmpty(); i++) {
            if (i > 0) {
                Thread.sleep(20); // the server span ends just after the response
            }
            events = given().queryParam("query", query).get("/traces/decisions").then().statusCode(200).extract()
                    .jsonPath().getList("$");
        }
        return events;
    }

    private static Map<String, Object> decisionOf(String apiKey, int status) throws InterruptedException {
        String probe = "probe=" + UUID.randomUUID();
        given().header("X-Api-Key", apiKey).get("/partner?" + probe).then().statusCode(status);
        List<Map<String, Object>> events = decisionsOf(probe);
        assertEquals(1, events.size(), () -> "one decision event: " + events);
        return events.get(0);
    }

    @Test
    void eachDecisionIsAnEventOnTheRequestsSpan() throws InterruptedException {
        String apiKey = "traced-" + UUID.randomUUID();
        Map<String, Object> first = decisionOf(apiKey, 200);
        assertEquals(List.of("partner"), first.get("ratelimit.policies"));
        assertEquals(true, first.get("ratelimit.allowed"));
        assertEquals("redis", first.get("ratelimit.decided_by"));
        assertEquals("partner", first.get("ratelimit.policy"));
        assertEquals(4, ((Number) first.get("ratelimit.remaining")).intValue());
        assertEquals(1, ((Number) first.get("ratelimit.batch.size")).intValue());
        for (int i = 0; i < 4; i++) {
            given().header("X-Api-Key", apiKey).get("/partner").then().statusCode(200);
        }
        Map<String, Object> denied = decisionOf(apiKey, 429);
        assertEquals(false, denied.get("ratelimit.allowed"));
        assertEquals("redis", denied.get("ratelimit.decided_by"));
        assertEquals(0, ((Number) denied.get("ratelimit.remaining")).intValue());
        double wait = ((Number) denied.get("ratelimit.retry_after")).doubleValue();
        assertTrue(wait > 0 && wait <= 12, () -> "gcra at 5 a minute admits one every 12 s: " + wait);
    }
}
