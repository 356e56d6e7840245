package dev.ratelimit.runtime.resilience;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.jboss.logging.Logger;

/**
 * Stops calling the backend while it is down, so that an outage costs each request nothing instead
 * of the whole timeout.
 * <p>
 * <b>Closed</b> (normal): every call goes through. After {@code failureThreshold} consecutive
 * failures (no success in between), and provided no call succeeded within the last
 * {@code quietPeriod}, it <b>opens</b>: no call goes through for {@code openDuration}, the failure
 * modes answer at once. Then it is <b>half-open</b>: exactly one call (the probe) goes through; its
 * success closes the breaker, its failure opens it again for another {@code openDuration}.
 * <p>
 * Why the quiet period: a Redis that answers most calls but lets some time out (a latency spike, a
 * slow command, a fork for a snapshot), or a backend where only some calls fail (a client routing
 * per node with one node down), produces runs of consecutive failures by chance under concurrency.
 * Opening then would send every request to the failure mode for a whole open duration. A success
 * within the last timeout means Redis is still there, so the breaker stays closed and only the
 * calls that fail use the failure mode (each bounded by the timeout). When Redis is really gone, the
 * quiet period is over one timeout after the last success, and the breaker opens.
 * <p>
 * Lock-free: the closed state costs one volatile read per call and, on success, a clock read and
 * an occasional write. An outage is logged once at WARN when the breaker opens and once at INFO when
 * it closes; re-opening after a failed probe is logged at DEBUG only.
 */
public final class CircuitBreaker {

    private static final Logger LOG = Logger.getLogger(CircuitBreaker.class);

    /** The breaker's state; {@link #code()} is the value of the {@code ratelimit.circuit.state} gauge. */
    public enum State {
        /** Calls go through. */
        CLOSED(0),
        /** Calls are refused until the open duration has passed. */
        OPEN(1),
        /** One probe call is in flight; the others are refused. */
        HALF_OPEN(2);

        private final int code;

        State(int code) {
            this.code = code;
        }

        /** 0 closed, 1 open, 2 half-open. */
        public int code() {
            return code;
        }
    }

    /** {@link #acquire()}: do not call the backend. */
    public static final int REJECTED = 0;
    /** {@link #acquire()}: call the backend, a normal call. */
    public static final int PERMITTED = 1;
    /** {@link #acquire()}: call the backend; this call is the half-open probe. */
    public static final int PROBE = 2;

    /** Success timestamps closer than this are not written again (keeps the hot path write-free). */
    private static final long SUCCESS_STAMP_RESOLUTION_NANOS = 1_000_000;

    private final String backend;
    private final int failureThreshold;
    private final long openNanos;
    private final long quietNanos;
    private final LongSupplier nanoClock;

    private final AtomicInteger state = new AtomicInteger(State.CLOSED.code);
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    /** When the breaker last opened (valid while open or half-open). */
    private volatile long openedAt;
    /** When the current probe was let through (valid while half-open). */
    private final AtomicLong probeStartedAt = new AtomicLong();
    private volatile long lastSuccessAt;
    /** When the outage began (first opening), for the recovery log line. */
    private volatile long outageStartedAt;
    /** Calls refused during the current outage, for the recovery log line. */
    private final AtomicLong refusedDuringOutage = new AtomicLong();

    /**
     * @param backend the backend's name, for the log lines
     * @param failureThreshold consecutive failures that open the breaker
     * @param openDuration how long it stays open before a probe
     * @param quietPeriod it does not open while a call succeeded within this period (the timeout)
     * @param nanoClock a monotonic clock in nanoseconds ({@code System::nanoTime})
     */
    public CircuitBreaker(String backend, int failureThreshold, Duration openDuration, Duration quietPeriod,
            LongSupplier nanoClock) {
        if (failureThreshold < 1) {
            throw new IllegalArgumentException("failure threshold must be positive, got " + failureThreshold);
        }
        this.backend = backend;
        this.failureThreshold = failureThreshold;
        this.openNanos = openDuration.toNanos();
        this.quietNanos = quietPeriod.toNanos();
        this.nanoClock = nanoClock;
        this.lastSuccessAt = nanoClock.getAsLong() - quietNanos - 1;
    }

    /**
     * Whether a call may go to the backend: {@link #REJECTED}, {@link #PERMITTED} or {@link #PROBE}.
     * Pass the result to {@link #onSuccess(int)} or {@link #onFailure(int, Throwable)}.
     */
    public int acquire() {
        int s = state.get();
        if (s == State.CLOSED.code) {
            return PERMITTED;
        }
        long now = nanoClock.getAsLong();
        if (s == State.OPEN.code) {
            if (now - openedAt >= openNanos && state.compareAndSet(State.OPEN.code, State.HALF_OPEN.code)) {
                probeStartedAt.set(now);
                return PROBE;
            }
        } else {
            // half-open: a probe whose outcome never came back (its caller cancelled) must not wedge the breaker
            long started = probeStartedAt.get();
            if (now - started >= openNanos && probeStartedAt.compareAndSet(started, now)) {
                return PROBE;
            }
        }
        refusedDuringOutage.incrementAndGet();
        return REJECTED;
    }

    /** A permitted call succeeded. */
    public void onSuccess(int permit) {
        onSuccess(permit, nanoClock.getAsLong());
    }

    /** A permitted call succeeded; {@code now} is the time on this breaker's clock, read by the caller. */
    public void onSuccess(int permit, long now) {
        if (now - lastSuccessAt > SUCCESS_STAMP_RESOLUTION_NANOS) {
            lastSuccessAt = now;
        }
        if (consecutiveFailures.get() != 0) {
            consecutiveFailures.set(0);
        }
        if (permit == PROBE && state.compareAndSet(State.HALF_OPEN.code, State.CLOSED.code)) {
            LOG.infof("Rate-limit backend %s is reachable again after %d ms; %d decisions were taken by the failure "
                    + "modes meanwhile", backend, (now - outageStartedAt) / 1_000_000, refusedDuringOutage.get());
        }
    }

    /** A permitted call failed or timed out. */
    public void onFailure(int permit, Throwable failure) {
        long now = nanoClock.getAsLong();
        if (permit == PROBE) {
            if (state.compareAndSet(State.HALF_OPEN.code, State.OPEN.code)) {
                openedAt = now;
                LOG.debugf("Rate-limit backend %s still failing (%s); probing again in %d ms", backend, failure,
                        openNanos / 1_000_000);
            }
            return;
        }
        int failures = consecutiveFailures.incrementAndGet();
        if (failures >= failureThreshold && now - lastSuccessAt > quietNanos
                && state.compareAndSet(State.CLOSED.code, State.OPEN.code)) {
            openedAt = now;
            outageStartedAt = now;
            refusedDuringOutage.set(0);
            consecutiveFailures.set(0);
            LOG.warnf("Rate-limit backend %s failed %d times in a row (last: %s); the failure modes decide without "
                    + "calling it, and it is probed every %d ms until it answers", backend, failures, failure,
                    openNanos / 1_000_000);
        }
    }

    /** The current state (an open breaker whose duration has passed stays open until the next call). */
    public State state() {
        int s = state.get();
        return s == State.CLOSED.code ? State.CLOSED : s == State.OPEN.code ? State.OPEN : State.HALF_OPEN;
    }

    @Override
    public String toString() {
        return "CircuitBreaker[" + backend + ", " + state() + "]";
    }
}
