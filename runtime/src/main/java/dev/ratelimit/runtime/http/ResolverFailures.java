package dev.ratelimit.runtime.http;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.jboss.logging.Logger;

import dev.ratelimit.runtime.metrics.RateLimitMetrics;

/**
 * Contains the exceptions of the application's resolvers ({@code KeyResolver}, {@code PlanResolver}): a resolver that
 * throws must not turn every request of its policy into a 500. Each failure is counted
 * ({@code ratelimit.resolver.failures}) and logged at WARN once per policy, resolver and exception type, then at most
 * once a minute with the number of failures in between; the request is then decided as documented (the client
 * address for a key, the base plan for a plan).
 */
final class ResolverFailures {

    private static final Logger LOG = Logger.getLogger(ResolverFailures.class);
    private static final long QUIET_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final RateLimitMetrics metrics;
    private final LongSupplier nanoClock;
    /** Per policy, resolver and exception type: when it was last logged, and the failures since. */
    private final Map<String, Logged> logged = new ConcurrentHashMap<>();

    private record Logged(long at, AtomicLong since) {
    }

    ResolverFailures(RateLimitMetrics metrics, LongSupplier nanoClock) {
        this.metrics = metrics;
        this.nanoClock = nanoClock;
    }

    /**
     * Reports that {@code resolver} ({@code key}, {@code plan} or {@code exemption}) threw {@code failure} for {@code policy}; {@code then}
     * says how the request is decided instead.
     */
    void failed(String policy, String resolver, RuntimeException failure, String then) {
        metrics.resolverFailed(policy, resolver);
        String id = policy + '\u0000' + resolver + '\u0000' + failure.getClass().getName();
        long now = nanoClock.getAsLong();
        Logged last = logged.get(id);
        if (last != null && now - last.at < QUIET_NANOS) {
            last.since.incrementAndGet();
            return;
        }
        Logged next = new Logged(now, new AtomicLong());
        boolean first = last == null ? logged.putIfAbsent(id, next) == null : logged.replace(id, last, next);
        if (!first) {
            Logged current = logged.get(id);
            if (current != null) {
                current.since.incrementAndGet();
            }
            return;
        }
        long between = last == null ? 0 : last.since.get();
        // the exception's type and message, never the request's values: a key resolver handles client identities
        LOG.warnf("The %s resolver of rate-limit policy '%s' threw %s (%s)%s; %s. Logged at most once a minute per "
                + "policy and exception type", resolver, policy, failure.getClass().getName(), failure.getMessage(),
                between == 0 ? "" : ", " + between + " more times since it was last logged", then);
        if (LOG.isDebugEnabled()) {
            LOG.debug("The resolver's failure", failure);
        }
    }
}
