package dev.ratelimit.deployment.tracing;

import static dev.ratelimit.deployment.tracing.Traces.ALLOWED;
import static dev.ratelimit.deployment.tracing.Traces.BATCH_SIZE;
import static dev.ratelimit.deployment.tracing.Traces.DECIDED_BY;
import static dev.ratelimit.deployment.tracing.Traces.POLICIES;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.deployment.resilience.OwnRedis;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.quarkus.test.QuarkusUnitTest;

/**
 * While Redis is down, the decision event names the failure mode that answered instead of Redis: {@code fail-open}
 * admitting, {@code fail-closed} denying, {@code local-fallback} deciding in process; the same request was decided by
 * {@code redis} before the outage.
 */
class FailureModeTraceTest {

    static final RedisServerProcess REDIS = OwnRedis.of(FailureModeTraceTest.class);

    @RegisterExtension
    static final QuarkusUnitTest TEST = Traces.application(Resource.class, OwnRedis.class)
            .overrideConfigKey("quarkus.redis.hosts", REDIS.uri())
            .overrideConfigKey("quarkus.ratelimit.redis.timeout", "200ms")
            .overrideConfigKey("quarkus.ratelimit.policies.open.limit", "100")
            .overrideConfigKey("quarkus.ratelimit.policies.open.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.open.on-failure", "fail-open")
            .overrideConfigKey("quarkus.ratelimit.policies.closed.limit", "100")
            .overrideConfigKey("quarkus.ratelimit.policies.closed.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.closed.on-failure", "fail-closed")
            .overrideConfigKey("quarkus.ratelimit.policies.fallback.limit", "100")
            .overrideConfigKey("quarkus.ratelimit.policies.fallback.window", "1m");

    @Path("/outage")
    public static class Resource {
        @GET
        @Path("open")
        @RateLimit("open")
        public String open() {
            return "ok";
        }

        @GET
        @Path("closed")
        @RateLimit("closed")
        public String closed() {
            return "ok";
        }

        @GET
        @Path("fallback")
        @RateLimit("fallback")
        public String fallback() {
            return "ok";
        }
    }

    @Inject
    InMemorySpanExporter exporter;

    @AfterAll
    static void stopRedis() {
        REDIS.stop();
    }

    private Attributes decisionOf(String path, int status) throws InterruptedException {
        exporter.reset();
        given().get(path).then().statusCode(status);
        return Traces.decision(Traces.serverSpan(exporter, path)).getAttributes();
    }

    @Test
    void theFailureModeThatAnsweredIsWhatDecided() throws InterruptedException {
        assertEquals("redis", decisionOf("/outage/open", 200).get(DECIDED_BY));
        assertEquals("redis", decisionOf("/outage/closed", 200).get(DECIDED_BY));
        assertEquals("redis", decisionOf("/outage/fallback", 200).get(DECIDED_BY));

        REDIS.kill();
        Attributes open = decisionOf("/outage/open", 200);
        assertEquals("fail-open", open.get(DECIDED_BY));
        assertEquals(true, open.get(ALLOWED));
        assertEquals(List.of("open"), open.get(POLICIES));
        assertNull(open.get(BATCH_SIZE), "no script run decided it");

        Attributes closed = decisionOf("/outage/closed", 429);
        assertEquals("fail-closed", closed.get(DECIDED_BY));
        assertEquals(false, closed.get(ALLOWED));

        Attributes fallback = decisionOf("/outage/fallback", 200);
        assertEquals("local-fallback", fallback.get(DECIDED_BY));
        assertEquals(true, fallback.get(ALLOWED));
        assertEquals(99L, fallback.get(Traces.REMAINING), "the in-process limiter counted this request");
    }
}
