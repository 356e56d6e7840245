package dev.ratelimit.deployment.tracing;

import static dev.ratelimit.deployment.tracing.Traces.ALLOWED;
import static dev.ratelimit.deployment.tracing.Traces.BATCH_SIZE;
import static dev.ratelimit.deployment.tracing.Traces.DECIDED_BY;
import static dev.ratelimit.deployment.tracing.Traces.POLICIES;
import static dev.ratelimit.deployment.tracing.Traces.REMAINING;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.test.redis.RedisFixture;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.QuarkusUnitTest;

/**
 * {@code quarkus.ratelimit.tracing.span-per-decision=true}: each decision is a span of its own, named
 * {@code ratelimit.decision}, a child of the request's server span, carrying the attributes the event carries
 * otherwise (and no event then); a denial is no error. A decision made outside any span starts none.
 */
class SpanPerDecisionTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = Traces.application(Resource.class)
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "traced-span-" + System.nanoTime())
            .overrideConfigKey("quarkus.ratelimit.tracing.span-per-decision", "true")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "1")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m");

    @Path("/own-span")
    public static class Resource {
        @GET
        @RateLimit("api")
        public String get() {
            return "ok";
        }
    }

    @Inject
    InMemorySpanExporter exporter;

    @Inject
    RateLimiter limiter;

    private SpanData decisionSpanOf(int status) throws InterruptedException {
        exporter.reset();
        given().get("/own-span").then().statusCode(status);
        SpanData server = Traces.serverSpan(exporter, "/own-span");
        assertEquals(List.of(), Traces.decisions(server), "no event on the server span");
        List<SpanData> own = Traces.decisionSpans(exporter);
        assertEquals(1, own.size(), () -> "one decision span in " + exporter.getFinishedSpanItems());
        SpanData span = own.get(0);
        assertEquals(server.getTraceId(), span.getTraceId());
        assertEquals(server.getSpanId(), span.getParentSpanId(), "a child of the request's span");
        assertEquals(SpanKind.INTERNAL, span.getKind());
        assertEquals(StatusCode.UNSET, span.getStatus().getStatusCode(), "a denial is an answer, not an error");
        assertTrue(span.getStartEpochNanos() >= server.getStartEpochNanos()
                && span.getEndEpochNanos() <= server.getEndEpochNanos(), "within the request");
        return span;
    }

    @Test
    void eachDecisionIsAChildSpan() throws InterruptedException {
        SpanData admitted = decisionSpanOf(200);
        assertEquals(List.of("api"), admitted.getAttributes().get(POLICIES));
        assertEquals(true, admitted.getAttributes().get(ALLOWED));
        assertEquals("redis", admitted.getAttributes().get(DECIDED_BY));
        assertEquals(0L, admitted.getAttributes().get(REMAINING));
        assertEquals(1L, admitted.getAttributes().get(BATCH_SIZE));

        SpanData denied = decisionSpanOf(429);
        assertEquals(false, denied.getAttributes().get(ALLOWED));
        assertEquals("redis", denied.getAttributes().get(DECIDED_BY));
    }

    @Test
    void aDecisionOutsideAnySpanStartsNone() {
        exporter.reset();
        assertTrue(limiter.checkBlocking("api", "outside-" + System.nanoTime()).allowed());
        // (the Redis client's own evalsha span may be there: quarkus-redis-client traces its commands)
        assertEquals(List.of(), Traces.decisionSpans(exporter));
    }
}
