package dev.ratelimit.runtime.resilience;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.jboss.logging.Logger;

import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.vertx.ConnectionErrors;

/**
 * Makes error replies from the backend visible. A connection failure or a timeout is an outage, which the circuit
 * breaker reports; an error reply (a script error, {@code WRONGTYPE}, {@code OOM}, {@code READONLY}...) comes from a
 * Redis that is up, so the breaker stays closed while the policies concerned are decided by their failure mode, call
 * after call. Each such error is counted in the metrics by kind, and logged at WARN at most once per kind per
 * {@link #LOG_INTERVAL_NANOS}, with the number of errors of that kind since the previous line.
 */
public final class BackendErrors {

    private static final Logger LOG = Logger.getLogger(BackendErrors.class);
    static final long LOG_INTERVAL_NANOS = 60_000_000_000L;

    private final String backend;
    private final RateLimitMetrics metrics;
    private final LongSupplier nanoClock;
    private final ConcurrentMap<String, Kind> kinds = new ConcurrentHashMap<>();

    public BackendErrors(String backend, RateLimitMetrics metrics, LongSupplier nanoClock) {
        this.backend = backend;
        this.metrics = metrics;
        this.nanoClock = nanoClock;
    }

    /** Whether a failure is an error reply (and not an unreachable backend or a timeout). */
    public static boolean isErrorReply(Throwable failure) {
        return !(failure instanceof TimeoutException) && !isConnectionLost(failure);
    }

    /** A failure that says the connection itself is gone (as opposed to an error reply from Redis). */
    public static boolean isConnectionLost(Throwable t) {
        return ConnectionErrors.isConnectionLost(t);
    }

    /**
     * The kind of an error reply: its first word as Redis writes it ({@code ERR}, {@code WRONGTYPE}, {@code OOM}...),
     * or the exception's simple name when the message has none.
     */
    static String kindOf(Throwable failure) {
        String m = failure.getMessage();
        if (m != null) {
            int end = 0;
            while (end < m.length() && end < 32 && (Character.isUpperCase(m.charAt(end)) || m.charAt(end) == '_')) {
                end++;
            }
            if (end > 1 && (end == m.length() || m.charAt(end) == ' ')) {
                return m.substring(0, end);
            }
        }
        return failure.getClass().getSimpleName();
    }

    /** Counts and (at most once per kind and interval) logs an error reply for a call on these policies. */
    public void report(Throwable failure, Policy[] policies) {
        String kind = kindOf(failure);
        metrics.backendError(kind);
        Kind k = kinds.computeIfAbsent(kind, x -> new Kind());
        k.count.incrementAndGet();
        long now = nanoClock.getAsLong();
        long last = k.loggedAt.get();
        boolean first = last == Kind.NEVER;
        if ((first || now - last >= LOG_INTERVAL_NANOS) && k.loggedAt.compareAndSet(last, now)) {
            long n = k.count.getAndSet(0);
            LOG.warnf("Rate-limit backend %s answered %d %s error(s)%s; the failure mode decided instead (policies %s)."
                    + " Last: %s", backend, n, kind, first ? "" : " in the last " + (now - last) / 1_000_000_000 + " s",
                    names(policies), failure.getMessage());
        }
    }

    private static String names(Policy[] policies) {
        StringBuilder s = new StringBuilder();
        for (Policy p : policies) {
            s.append(s.length() == 0 ? "" : ", ").append(p.name());
        }
        return s.toString();
    }

    private static final class Kind {
        static final long NEVER = Long.MIN_VALUE;
        final AtomicLong count = new AtomicLong();
        final AtomicLong loggedAt = new AtomicLong(NEVER);
    }
}
