package dev.ratelimit.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

import org.jboss.logging.Logger;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.runtime.RateLimitRuntimeConfig.FailureMode;
import io.smallrye.mutiny.Uni;

/**
 * Turns checks into backend calls and backend replies into decisions; applies the timeout and the
 * failure mode when the backend fails.
 */
public class DefaultRateLimiter implements RateLimiter {

    private static final Logger LOG = Logger.getLogger(DefaultRateLimiter.class);

    private final PolicyRegistry policies;
    private final RateLimitBackend backend;
    private final LocalBackend local;
    private final String keyPrefix;
    private final Duration timeout;
    private final Source primarySource;

    public DefaultRateLimiter(PolicyRegistry policies, RateLimitBackend backend, LocalBackend local, String keyPrefix,
            Duration timeout) {
        this.policies = policies;
        this.backend = backend;
        this.local = local;
        this.keyPrefix = keyPrefix;
        this.timeout = timeout;
        this.primarySource = backend == local ? Source.LOCAL : Source.REDIS;
    }

    /** The policies this limiter knows. */
    public PolicyRegistry policies() {
        return policies;
    }

    /** The backend deciding while it is healthy. */
    public RateLimitBackend backend() {
        return backend;
    }

    @Override
    public Uni<RateLimitDecision> check(List<RateLimitCheck> checks) {
        int n = checks.size();
        if (n == 0) {
            throw new IllegalArgumentException("at least one check is needed");
        }
        Policy[] ps = new Policy[n];
        String[] keys = new String[n];
        long[] costs = new long[n];
        for (int i = 0; i < n; i++) {
            RateLimitCheck c = checks.get(i);
            Policy p = policies.get(c.policy());
            if (c.cost() > p.capacity()) {
                throw new IllegalArgumentException("cost " + c.cost() + " can never be admitted by policy '" + p.name()
                        + "', whose capacity is " + p.capacity() + "; lower the cost or raise "
                        + PolicyValidator.property(p.name(), p.algorithm().usesBurst() ? "burst" : "limit"));
            }
            ps[i] = p;
            keys[i] = RedisKeys.key(keyPrefix, p.name(), c.key());
            costs[i] = c.cost();
        }
        Uni<long[]> reply = backend.decide(ps, keys, costs, RateLimitBackend.BACKEND_CLOCK, false);
        if (backend == local) {
            return reply.map(r -> decision(ps, r, Source.LOCAL));
        }
        return reply.ifNoItem().after(timeout).fail()
                .map(r -> decision(ps, r, primarySource))
                .onFailure().recoverWithUni(t -> onBackendFailure(ps, keys, costs, t));
    }

    @Override
    public RateLimitDecision checkBlocking(List<RateLimitCheck> checks) {
        // bounded: the backend call carries the timeout, the failure modes answer at once
        return check(checks).await().indefinitely();
    }

    private Uni<RateLimitDecision> onBackendFailure(Policy[] ps, String[] keys, long[] costs, Throwable t) {
        FailureMode mode = strictest(ps);
        if (LOG.isDebugEnabled()) {
            LOG.debugf("Rate-limit backend %s failed (%s), applying %s", backend.name(),
                    t instanceof TimeoutException ? "timeout after " + timeout : t.toString(), mode);
        }
        switch (mode) {
            case FAIL_OPEN:
                return Uni.createFrom().item(synthetic(ps, true, Source.FAILED_OPEN));
            case FAIL_CLOSED:
                return Uni.createFrom().item(synthetic(ps, false, Source.FAILED_CLOSED));
            default:
                return Uni.createFrom().item(() -> decision(ps,
                        local.decideNow(ps, keys, costs, RateLimitBackend.BACKEND_CLOCK, false), Source.LOCAL));
        }
    }

    /** With several policies the strictest failure mode wins: closed over local over open. */
    private static FailureMode strictest(Policy[] ps) {
        FailureMode m = FailureMode.FAIL_OPEN;
        for (Policy p : ps) {
            if (p.onFailure() == FailureMode.FAIL_CLOSED) {
                return FailureMode.FAIL_CLOSED;
            }
            if (p.onFailure() == FailureMode.LOCAL) {
                m = FailureMode.LOCAL;
            }
        }
        return m;
    }

    private static RateLimitDecision synthetic(Policy[] ps, boolean allowed, Source source) {
        List<PolicyDecision> list = new ArrayList<>(ps.length);
        for (Policy p : ps) {
            // without the backend nothing is known of the budget: report none left when denying
            list.add(new PolicyDecision(p.name(), p.limit(), p.window(), allowed, allowed ? p.limit() : 0,
                    allowed ? Duration.ZERO : Duration.ofSeconds(1), Duration.ZERO, p.shadow()));
        }
        return new RateLimitDecision(allowed, list, source);
    }

    static RateLimitDecision decision(Policy[] ps, long[] r, Source source) {
        List<PolicyDecision> list = new ArrayList<>(ps.length);
        for (int i = 0; i < ps.length; i++) {
            Policy p = ps[i];
            int b = 1 + 4 * i;
            long retryMs = r[b + 2] < 0 ? p.window().toMillis() : r[b + 2];
            list.add(new PolicyDecision(p.name(), p.limit(), p.window(), r[b] == 1, Math.max(0, r[b + 1]),
                    Duration.ofMillis(retryMs), Duration.ofMillis(Math.max(0, r[b + 3])), p.shadow()));
        }
        return new RateLimitDecision(r[0] == 1, list, source);
    }
}
