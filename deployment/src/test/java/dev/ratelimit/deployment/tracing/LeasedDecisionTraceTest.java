package dev.ratelimit.deployment.tracing;

import static dev.ratelimit.deployment.tracing.Traces.ALLOWED;
import static dev.ratelimit.deployment.tracing.Traces.DECIDED_BY;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.test.redis.RedisFixture;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.api.trace.SpanKind;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A request admitted from a slice of its key this instance leased ({@code lease}) is traced as decided by the lease;
 * the request that took the slice, as decided by Redis.
 */
class LeasedDecisionTraceTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = Traces.application(Resource.class)
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "leased-traced-" + System.nanoTime())
            .overrideConfigKey("quarkus.ratelimit.policies.hot.limit", "100000")
            .overrideConfigKey("quarkus.ratelimit.policies.hot.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.hot.key", "global")
            .overrideConfigKey("quarkus.ratelimit.policies.hot.lease", "auto");

    @Path("/leased")
    public static class Resource {
        @GET
        @RateLimit("hot")
        public String hot() {
            return "ok";
        }
    }

    @Inject
    InMemorySpanExporter exporter;

    @Test
    void decisionsFromASliceAreTracedAsDecidedByTheLease() throws InterruptedException {
        for (int i = 0; i < 50; i++) {
            given().get("/leased").then().statusCode(200);
        }
        List<String> decidedBy = new ArrayList<>();
        long deadline = System.nanoTime() + 10_000_000_000L;
        List<SpanData> spans = List.of();
        while (System.nanoTime() < deadline) {
            spans = exporter.getFinishedSpanItems().stream().filter(s -> s.getKind() == SpanKind.SERVER).toList();
            if (spans.size() >= 50) {
                break;
            }
            Thread.sleep(20);
        }
        for (SpanData span : spans) {
            EventData e = Traces.decision(span);
            assertEquals(true, e.getAttributes().get(ALLOWED));
            decidedBy.add(e.getAttributes().get(DECIDED_BY));
        }
        assertEquals(50, decidedBy.size());
        assertTrue(decidedBy.contains("lease"), () -> "some from a slice: " + decidedBy);
        assertTrue(decidedBy.contains("redis"), () -> "the first ones, and those that took a slice, by Redis: " + decidedBy);
        assertTrue(decidedBy.stream().allMatch(d -> d.equals("lease") || d.equals("redis")), decidedBy::toString);
    }
}
