package dev.ratelimit.deployment.tracing;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.runtime.tracing.RateLimitTracing;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.arc.Arc;
import io.quarkus.test.QuarkusUnitTest;

/**
 * {@code quarkus.ratelimit.tracing.enabled=false}: the application still traces its requests, the limiter adds nothing
 * to them, and no tracing bean of the extension exists.
 */
class TracingDisabledTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = Traces.application(Resource.class)
            .overrideConfigKey("quarkus.ratelimit.tracing.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.tracing.span-per-decision", "true")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "1")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m");

    @Path("/untraced")
    public static class Resource {
        @GET
        @RateLimit("api")
        public String get() {
            return "ok";
        }
    }

    @Inject
    InMemorySpanExporter exporter;

    @Test
    void nothingIsAdded() throws InterruptedException {
        for (int status : new int[] { 200, 429 }) {
            exporter.reset();
            given().get("/untraced").then().statusCode(status);
            SpanData server = Traces.serverSpan(exporter, "/untraced");
            assertEquals(List.of(), Traces.decisions(server), "no decision event");
            assertEquals(List.of(), Traces.decisionSpans(exporter), "no decision span");
        }
        assertFalse(Arc.container().select(RateLimitTracing.class).isResolvable(), "no tracing bean");
    }
}
