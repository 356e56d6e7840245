package dev.ratelimit.deployment.tracing;

import static dev.ratelimit.deployment.tracing.Traces.ALLOWED;
import static dev.ratelimit.deployment.tracing.Traces.BATCH_SIZE;
import static dev.ratelimit.deployment.tracing.Traces.DECIDED_BY;
import static dev.ratelimit.deployment.tracing.Traces.POLICIES;
import static dev.ratelimit.deployment.tracing.Traces.POLICY;
import static dev.ratelimit.deployment.tracing.Traces.REMAINING;
import static dev.ratelimit.deployment.tracing.Traces.RETRY_AFTER;
import static dev.ratelimit.deployment.tracing.Traces.SHADOW_DENIED;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.test.redis.RedisFixture;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.vertx.VertxContext;
import io.vertx.core.Vertx;

/**
 * With OpenTelemetry, each decision is an event named {@code ratelimit.decision} on the span current when it was
 * asked for: over HTTP the request's server span, whether the filter decided or the interceptor of a bean the resource
 * called; its attributes say which policies, admitted or not, what decided, what is left, the wait, the shadow
 * policies that would have denied, and how many decisions the Redis script run made. No span of its own by default.
 */
class DecisionEventTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = Traces.application(Resource.class, Mailer.class)
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "traced-" + System.nanoTime())
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.mail.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.mail.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.wide.limit", "100")
            .overrideConfigKey("quarkus.ratelimit.policies.wide.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.dark.limit", "1")
            .overrideConfigKey("quarkus.ratelimit.policies.dark.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.dark.mode", "shadow")
            .overrideConfigKey("quarkus.ratelimit.policies.bulk.limit", "1000")
            .overrideConfigKey("quarkus.ratelimit.policies.bulk.window", "1m");

    @Path("/traced")
    public static class Resource {
        @Inject
        Mailer mailer;

        @GET
        @Path("api")
        @RateLimit("api")
        public String api() {
            return "ok";
        }

        @GET
        @Path("shadowed")
        @RateLimit("wide")
        @RateLimit("dark")
        public String shadowed() {
            return "ok";
        }

        /** Not limited itself: the bean it calls is. */
        @GET
        @Path("mail")
        public String mail() {
            return mailer.send();
        }
    }

    @ApplicationScoped
    public static class Mailer {
        @RateLimit("mail")
        public String send() {
            return "sent";
        }
    }

    @Inject
    InMemorySpanExporter exporter;

    @Inject
    RateLimiter limiter;

    @Inject
    OpenTelemetry openTelemetry;

    @Inject
    Vertx vertx;

    @BeforeEach
    void reset() {
        exporter.reset();
    }

    private EventData decisionOf(String path, int status) throws InterruptedException {
        given().get(path).then().statusCode(status);
        return Traces.decision(Traces.serverSpan(exporter, path));
    }

    @Test
    void admittedThenDeniedByRedisThenByTheDenyCache() throws InterruptedException {
        Attributes first = decisionOf("/traced/api", 200).getAttributes();
        assertEquals(List.of("api"), first.get(POLICIES));
        assertEquals(true, first.get(ALLOWED));
        assertEquals("redis", first.get(DECIDED_BY));
        assertEquals("api", first.get(POLICY));
        assertEquals(1L, first.get(REMAINING));
        assertEquals(1L, first.get(BATCH_SIZE), "a lone request is a script run of one");
        assertNull(first.get(RETRY_AFTER), "only a denial has a wait");
        assertNull(first.get(SHADOW_DENIED));
        assertEquals(List.of(), Traces.decisionSpans(exporter), "no span of its own unless configured");

        exporter.reset();
        assertEquals(0L, decisionOf("/traced/api", 200).getAttributes().get(REMAINING));

        exporter.reset();
        Attributes denied = decisionOf("/traced/api", 429).getAttributes();
        assertEquals(false, denied.get(ALLOWED));
        assertEquals("redis", denied.get(DECIDED_BY));
        assertEquals("api", denied.get(POLICY));
        assertEquals(0L, denied.get(REMAINING));
        double wait = denied.get(RETRY_AFTER);
        assertTrue(wait > 0 && wait <= 30, () -> "a token bucket of 2 a minute refills one in 30 s at most: " + wait);

        exporter.reset();
        Attributes cached = decisionOf("/traced/api", 429).getAttributes();
        assertEquals(false, cached.get(ALLOWED));
        assertEquals("deny-cache", cached.get(DECIDED_BY), "Redis denied the key moments ago");
        assertNull(cached.get(BATCH_SIZE), "no script run decided it");
    }

    @Test
    void aBeanMethodCalledInARequestIsTracedOnTheRequestsSpan() throws InterruptedException {
        Attributes a = decisionOf("/traced/mail", 200).getAttributes();
        assertEquals(List.of("mail"), a.get(POLICIES));
        assertEquals(true, a.get(ALLOWED));
        assertEquals("redis", a.get(DECIDED_BY));
        assertEquals(4L, a.get(REMAINING));
    }

    @Test
    void aShadowPolicyThatWouldHaveDeniedIsNamed() throws InterruptedException {
        Attributes a = decisionOf("/traced/shadowed", 200).getAttributes();
        assertEquals(List.of("wide", "dark"), a.get(POLICIES));
        assertNull(a.get(SHADOW_DENIED), "the shadow policy admitted the first request");

        exporter.reset();
        Attributes b = decisionOf("/traced/shadowed", 200).getAttributes();
        assertEquals(true, b.get(ALLOWED), "shadow policies never deny");
        assertEquals(List.of("dark"), b.get(SHADOW_DENIED));
    }

    /**
     * Decisions asked for in one event-loop turn while Redis is busy go in script runs of several: each event says how
     * many decisions its run made, so for every size n, the events reporting n come in whole runs of n. They land on
     * the span current when they were asked for, although Redis's replies are read later.
     */
    @Test
    void decisionsMadeTogetherReportTheirRunsSize() throws Exception {
        int calls = 20;
        CountDownLatch decided = new CountDownLatch(calls);
        AtomicReference<Span> span = new AtomicReference<>();
        io.vertx.core.Context context = VertxContext.getOrCreateDuplicatedContext(vertx);
        context.runOnContext(v -> {
            Span s = openTelemetry.getTracer("test").spanBuilder("caller").startSpan();
            span.set(s);
            try (Scope ignored = s.makeCurrent()) {
                for (int i = 0; i < calls; i++) {
                    limiter.check("bulk", "k" + i, 1).subscribe().with(d -> decided.countDown(),
                            f -> decided.countDown());
                }
            }
        });
        assertTrue(decided.await(10, TimeUnit.SECONDS));
        span.get().end();
        SpanData caller = exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals("caller"))
                .findFirst().orElseThrow(() -> new AssertionError(span.get() + " not in " + exporter.getFinishedSpanItems()));
        List<EventData> events = Traces.decisions(caller);
        assertEquals(calls, events.size(), () -> "every decision on the caller's span: " + caller);
        Map<Long, Integer> eventsBySize = new TreeMap<>();
        for (EventData e : events) {
            assertEquals(true, e.getAttributes().get(ALLOWED));
            eventsBySize.merge(e.getAttributes().get(BATCH_SIZE), 1, Integer::sum);
        }
        assertTrue(eventsBySize.containsKey(1L), () -> "the first call goes alone: " + eventsBySize);
        assertTrue(eventsBySize.keySet().stream().anyMatch(n -> n > 1),
                () -> "the calls asked for while it was in flight went together: " + eventsBySize);
        eventsBySize.forEach((size, count) -> {
            assertTrue(size >= 1 && size <= 16, () -> "within quarkus.ratelimit.redis.max-batch: " + eventsBySize);
            assertEquals(0, count % size, () -> "whole runs of " + size + ": " + eventsBySize);
        });
    }
}
