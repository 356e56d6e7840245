package dev.ratelimit.runtime.metrics;

import java.util.Collection;
import java.util.function.IntSupplier;

import dev.ratelimit.runtime.policy.Policy;

/**
 * Where the limiter reports what it does. Free of any metrics library, so the runtime works without
 * one; {@link MicrometerMetrics} implements it when the application has Micrometer.
 */
public interface RateLimitMetrics {

    /** Reports nothing (no Micrometer in the application). */
    RateLimitMetrics NONE = new RateLimitMetrics() {
        @Override
        public void register(Collection<Policy> policies, String backend, IntSupplier breakerState) {
        }

        @Override
        public void decided(String policy, Outcome outcome) {
        }

        @Override
        public void backendLatency(long nanos) {
        }

        @Override
        public void backendError(String kind) {
        }
    };

    /** The {@code outcome} tag of {@code ratelimit.decisions}. */
    enum Outcome {
        /** Admitted by the backend. */
        ALLOWED("allowed"),
        /** Denied by the backend. */
        DENIED("denied"),
        /** A shadow policy would have denied (the request was not denied for it). */
        SHADOW_DENIED("shadow-denied"),
        /** The backend failed and {@code fail-open} admitted. */
        FAILED_OPEN("failed-open"),
        /** The backend failed and {@code fail-closed} denied. */
        FAILED_CLOSED("failed-closed"),
        /** The backend failed and the in-process limiter decided ({@code local}). */
        LOCAL_FALLBACK("local-fallback"),
        /** Denied by the deny cache without a backend call. */
        DENY_CACHE("deny-cache"),
        /** Not counted: the request is exempt from the policy ({@code exempt-addresses}, an {@code Exemption} bean). */
        EXEMPT("exempt");

        private final String tag;

        Outcome(String tag) {
            this.tag = tag;
        }

        /** The tag value. */
        public String tag() {
            return tag;
        }
    }

    /**
     * Creates the meters; called once, when the limiter is built.
     *
     * @param policies every configured policy (their counters exist from the start, at zero)
     * @param backend the backend's name ({@code backend} tag of the latency timer)
     * @param breakerState the circuit breaker's state code (0 closed, 1 open, 2 half-open), or {@code null} when
     *        there is none (local backend)
     */
    void register(Collection<Policy> policies, String backend, IntSupplier breakerState);

    /** One request was decided for {@code policy} with this outcome. */
    void decided(String policy, Outcome outcome);

    /** One backend call took this long (successful or not). */
    void backendLatency(long nanos);

    /**
     * The backend answered an error reply of this kind ({@code ERR}, {@code WRONGTYPE}, {@code OOM}...): it is up,
     * but did not decide.
     */
    void backendError(String kind);

    /**
     * An application resolver threw for {@code policy} ({@code resolver}: {@code key} or {@code plan}) and the request
     * was decided without it (the client address, the base plan).
     */
    default void resolverFailed(String policy, String resolver) {
    }

    /**
     * A reservation of {@code policy} was settled: {@code units} given back (positive), charged more (negative) or
     * none; {@code failed}: the backend did not settle it (a failure or a timeout), so the estimate stays charged.
     */
    default void settled(String policy, long units, boolean failed) {
    }

    /** A key of {@code policy} was given values of its own ({@code set}) or had them removed ({@code set}: false). */
    /** A slice of {@code units} of a key of {@code policy} was leased from the backend ({@code lease}). */
    default void leased(String policy, long units) {
    }

    /** A slice of {@code policy} ended with {@code units} it did not use, given back to the backend. */
    default void leaseReturned(String policy, long units) {
    }

    /**
     * A call of {@code policy} ({@code max-wait}) waited {@code nanos} for admission: admitted at the end, or denied (the
     * wait allowed ran out, or the denial could not be waited out).
     */
    default void waited(String policy, long nanos, boolean admitted) {
    }

    default void overridden(String policy, boolean set) {
    }
}
