package dev.ratelimit.runtime.tracing;

import java.util.List;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.resilience.DecidedBy;

/**
 * Where the limiter reports each decision for tracing. Free of any tracing library, so the runtime works without
 * one; {@link OpenTelemetryTracing} implements it when the application has OpenTelemetry tracing.
 * <p>
 * A decision is asked for on the caller's thread, in the caller's context, but may complete elsewhere (the event loop
 * that read Redis's reply, the timeout's thread): {@link #start()} is called when it is asked for and captures what
 * the decision will be recorded on, {@link #decided} records it wherever it completes.
 */
public interface RateLimitTracing {

    /** Records nothing (no OpenTelemetry in the application, or tracing turned off). */
    RateLimitTracing NONE = new RateLimitTracing() {
        @Override
        public Object start() {
            return null;
        }

        @Override
        public void decided(Object trace, RateLimitDecision decision, DecidedBy by, int runSize) {
        }

        @Override
        public void abandoned(Object trace, Throwable failure) {
        }
    };

    /**
     * Called when a decision is asked for, on the caller's thread: what the decision will be recorded on (the current
     * span, or a span of its own started now), or {@code null} when nothing will be recorded (no span, or one that
     * is not sampled). Then exactly one of {@link #decided} and {@link #abandoned} follows for a non-null result.
     */
    Object start();

    /**
     * Records the decision on {@code trace}, what {@link #start()} returned (never null).
     *
     * @param by what decided it
     * @param runSize how many decisions the Redis script run that decided it made (1: alone); 0 when not known or
     *        when no script run decided it
     */
    void decided(Object trace, RateLimitDecision decision, DecidedBy by, int runSize);

    /**
     * The decision asked for on {@code trace} will never be made: its caller gave up, or it failed ({@code failure},
     * null when it was cancelled).
     */
    void abandoned(Object trace, Throwable failure);

    /**
     * A reservation of {@code policies} is being settled, on the caller's thread: {@code units[i]} given back to
     * policy {@code i} (negative: charged more). Recorded on the current span, if any.
     */
    default void settling(List<String> policies, long[] units) {
    }
}
