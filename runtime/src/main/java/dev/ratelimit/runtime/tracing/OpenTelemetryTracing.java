package dev.ratelimit.runtime.tracing;

import java.util.ArrayList;
import java.util.List;

import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.resilience.DecidedBy;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;

/**
 * Each decision as an event named {@code ratelimit.decision} on the span current when it was asked for (the server
 * span of an HTTP request, or whatever span the caller is in), or, with
 * {@code quarkus.ratelimit.tracing.span-per-decision}, as a span of that name of its own, a child of it, carrying the
 * same attributes.
 * <p>
 * This is the only class that references OpenTelemetry. It is registered as a bean by the build only when the
 * application has OpenTelemetry tracing: the OpenTelemetry API is an optional dependency, and a class referring to
 * absent classes would fail a native build (and a JVM start, once loaded). Everything else talks to
 * {@link RateLimitTracing}.
 */
@Singleton
public class OpenTelemetryTracing implements RateLimitTracing {

    /** The event's name, and the span's. */
    public static final String NAME = "ratelimit.decision";
    /** The instrumentation scope of the spans it starts. */
    static final String SCOPE = "dev.ratelimit";

    /** Every policy the decision checked, in order. */
    static final AttributeKey<List<String>> POLICIES = AttributeKey.stringArrayKey("ratelimit.policies");
    /** Whether the request may proceed. */
    static final AttributeKey<Boolean> ALLOWED = AttributeKey.booleanKey("ratelimit.allowed");
    /** What decided: {@link DecidedBy#value()}. */
    static final AttributeKey<String> DECIDED_BY = AttributeKey.stringKey("ratelimit.decided_by");
    /** The binding policy: the denying one that needs the longest wait, or the one with the fewest units left. */
    static final AttributeKey<String> POLICY = AttributeKey.stringKey("ratelimit.policy");
    /** Units the binding policy has left. */
    static final AttributeKey<Long> REMAINING = AttributeKey.longKey("ratelimit.remaining");
    /** Seconds until the request could be admitted; only on a denial. */
    static final AttributeKey<Double> RETRY_AFTER = AttributeKey.doubleKey("ratelimit.retry_after");
    /** The policies in {@code mode=shadow} that would have denied; only when there are some. */
    static final AttributeKey<List<String>> SHADOW_DENIED = AttributeKey.stringArrayKey("ratelimit.shadow_denied");
    /** Decisions made by the Redis script run that made this one (1: alone); only when a script run decided. */
    static final AttributeKey<Long> BATCH_SIZE = AttributeKey.longKey("ratelimit.batch.size");
    /** The event a reservation's settlement records on the current span. */
    static final String SETTLEMENT = "ratelimit.settlement";
    /** Per policy of a settlement, the units given back (negative: charged more). */
    static final AttributeKey<List<Long>> SETTLED_UNITS = AttributeKey.longArrayKey("ratelimit.settled_units");
    /** On a span of its own that ends without a decision: its caller gave up on it. */
    static final AttributeKey<Boolean> CANCELLED = AttributeKey.booleanKey("ratelimit.cancelled");

    private final Tracer tracer;
    private final boolean spanPerDecision;

    /** Read by name: the runtime configuration root is the wiring's, which this package does not import. */
    OpenTelemetryTracing(OpenTelemetry openTelemetry,
            @ConfigProperty(name = "quarkus.ratelimit.tracing.span-per-decision", defaultValue = "false") boolean spanPerDecision) {
        this.tracer = openTelemetry.getTracer(SCOPE);
        this.spanPerDecision = spanPerDecision;
    }

    @Override
    public Object start() {
        // the caller's context: the decision may complete on another thread, where another span is current
        Context parent = Context.current();
        Span current = Span.fromContext(parent);
        if (!spanPerDecision) {
            return current.isRecording() ? current : null;
        }
        if (!current.getSpanContext().isValid()) {
            return null; // a decision outside any trace starts none: it would be a trace of one span
        }
        Span own = tracer.spanBuilder(NAME).setParent(parent).setSpanKind(SpanKind.INTERNAL).startSpan();
        return own.isRecording() ? own : null;
    }

    @Override
    public void decided(Object trace, RateLimitDecision decision, DecidedBy by, int runSize) {
        Span span = (Span) trace;
        Attributes attributes = attributes(decision, by, runSize);
        if (spanPerDecision) {
            span.setAllAttributes(attributes);
            span.end();
        } else {
            span.addEvent(NAME, attributes);
        }
    }

    @Override
    public void abandoned(Object trace, Throwable failure) {
        if (!spanPerDecision) {
            return; // no decision, no event
        }
        Span span = (Span) trace;
        if (failure == null) {
            span.setAttribute(CANCELLED, true);
        } else {
            span.recordException(failure);
            span.setStatus(StatusCode.ERROR);
        }
        span.end();
    }

    @Override
    public void settling(List<String> policies, long[] units) {
        Span current = Span.current();
        if (!current.isRecording()) {
            return;
        }
        List<Long> each = new ArrayList<>(units.length);
        for (long u : units) {
            each.add(u);
        }
        current.addEvent(SETTLEMENT, Attributes.builder().put(POLICIES, policies).put(SETTLED_UNITS, each).build());
    }

    static Attributes attributes(RateLimitDecision d, DecidedBy by, int runSize) {
        List<PolicyDecision> each = d.policies();
        List<String> names = new ArrayList<>(each.size());
        List<String> shadowDenied = null;
        for (PolicyDecision p : each) {
            names.add(p.policy());
            if (p.shadow() && !p.allowed()) {
                if (shadowDenied == null) {
                    shadowDenied = new ArrayList<>(1);
                }
                shadowDenied.add(p.policy());
            }
        }
        AttributesBuilder b = Attributes.builder()
                .put(POLICIES, names)
                .put(ALLOWED, d.allowed())
                .put(DECIDED_BY, by.value())
                .put(POLICY, d.policy())
                .put(REMAINING, d.remaining());
        if (!d.allowed()) {
            b.put(RETRY_AFTER, d.retryAfter().toNanos() / 1e9);
        }
        if (shadowDenied != null) {
            b.put(SHADOW_DENIED, shadowDenied);
        }
        if (runSize > 0) {
            b.put(BATCH_SIZE, (long) runSize);
        }
        return b.build();
    }
}
