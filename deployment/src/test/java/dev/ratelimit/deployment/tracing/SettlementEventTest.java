package dev.ratelimit.deployment.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Reservation;
import dev.ratelimit.test.redis.RedisFixture;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.QuarkusUnitTest;

/**
 * With OpenTelemetry, a reservation's settlement is an event named {@code ratelimit.settlement} on the span current
 * when it is settled, naming its policies and the units each gave back (negative: charged more).
 */
class SettlementEventTest {

    static final AttributeKey<List<Long>> SETTLED_UNITS = AttributeKey.longArrayKey("ratelimit.settled_units");

    @RegisterExtension
    static final QuarkusUnitTest TEST = Traces.application()
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "settle-traced-" + System.nanoTime())
            .overrideConfigKey("quarkus.ratelimit.policies.tokens.limit", "1000")
            .overrideConfigKey("quarkus.ratelimit.policies.tokens.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.calls.limit", "10")
            .overrideConfigKey("quarkus.ratelimit.policies.calls.window", "1h");

    @Inject
    InMemorySpanExporter exporter;

    @Inject
    RateLimiter limiter;

    @Inject
    OpenTelemetry openTelemetry;

    @Test
    void aSettlementIsAnEventOnTheCurrentSpan() {
        Reservation r = limiter.reserveBlocking(RateLimitCheck.of("tokens", "t").cost(400),
                RateLimitCheck.of("calls", "t"));
        Span caller = openTelemetry.getTracer("test").spanBuilder("caller").startSpan();
        try (Scope ignored = caller.makeCurrent()) {
            r.settle(java.util.Map.of("tokens", 250L, "calls", 1L)).await().atMost(Duration.ofSeconds(5));
        } finally {
            caller.end();
        }
        SpanData span = exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals("caller"))
                .findFirst().orElseThrow();
        List<EventData> settlements = span.getEvents().stream().filter(e -> e.getName().equals("ratelimit.settlement"))
                .toList();
        assertEquals(1, settlements.size(), span::toString);
        assertEquals(List.of("tokens", "calls"), settlements.get(0).getAttributes().get(Traces.POLICIES));
        assertEquals(List.of(150L, 0L), settlements.get(0).getAttributes().get(SETTLED_UNITS));
    }
}
