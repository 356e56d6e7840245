package dev.ratelimit.deployment.tracing;

import static dev.ratelimit.deployment.tracing.Traces.ALLOWED;
import static dev.ratelimit.deployment.tracing.Traces.BATCH_SIZE;
import static dev.ratelimit.deployment.tracing.Traces.DECIDED_BY;
import static dev.ratelimit.deployment.tracing.Traces.POLICIES;
import static dev.ratelimit.deployment.tracing.Traces.REMAINING;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.quarkus.test.QuarkusUnitTest;

/** With {@code backend=local} the in-process backend decides, as itself ({@code local}), not as a fallback. */
class LocalBackendTraceTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = Traces.application(Resource.class)
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "1")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m");

    @Path("/local")
    public static class Resource {
        @GET
        @RateLimit("api")
        public String get() {
            return "ok";
        }
    }

    @Inject
    InMemorySpanExporter exporter;

    private Attributes decisionOf(int status) throws InterruptedException {
        exporter.reset();
        given().get("/local").then().statusCode(status);
        return Traces.decision(Traces.serverSpan(exporter, "/local")).getAttributes();
    }

    @Test
    void decidedInProcess() throws InterruptedException {
        Attributes admitted = decisionOf(200);
        assertEquals(List.of("api"), admitted.get(POLICIES));
        assertEquals("local", admitted.get(DECIDED_BY));
        assertEquals(true, admitted.get(ALLOWED));
        assertEquals(0L, admitted.get(REMAINING));
        assertNull(admitted.get(BATCH_SIZE), "no script run");

        Attributes denied = decisionOf(429);
        assertEquals("local", denied.get(DECIDED_BY));
        assertEquals(false, denied.get(ALLOWED));
    }
}
