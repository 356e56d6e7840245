package dev.ratelimit.runtime.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

import org.jboss.logging.Logger;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.backend.Lease;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.Policy;

/**
 * What decides when the backend cannot: the failure mode of the request's policies, the strictest when they differ
 * (closed over local over open). {@code fail-open} admits and {@code fail-closed} denies without knowing the budget;
 * {@code local} decides in process with the same algorithms.
 */
public final class FailureModes {

    /** The limiter's category, where operators have always found these lines. */
    private static final Logger LOG = Logger.getLogger("dev.ratelimit.runtime.core.DefaultRateLimiter");
    /** The retry-after of a fail-closed denial: nothing is known of the budget, so the next second may do. */
    private static final Duration FAILED_CLOSED_RETRY = Duration.ofSeconds(1);

    private final String backend;
    private final LocalBackend local;
    private final Duration timeout;

    public FailureModes(String backend, LocalBackend local, Duration timeout) {
        this.backend = backend;
        this.local = local;
        this.timeout = timeout;
    }

    /**
     * The failure mode's decision for a call whose concurrency policies take slots named {@code lease} (null: none);
     * {@code failure} is null when the breaker refused the call.
     */
    public RateLimitDecision decide(Policy[] ps, String[] keys, long[] costs, String lease, Throwable failure) {
        FailureMode mode = strictest(ps);
        if (LOG.isDebugEnabled()) {
            // logged under the limiter's name, where operators have always found it
            LOG.debugf("Rate-limit backend %s %s, applying %s", backend,
                    failure == null ? "not called (circuit breaker open)"
                            : "failed (" + (failure instanceof TimeoutException ? "timeout after " + timeout
                                    : failure.toString()) + ")",
                    mode);
        }
        switch (mode) {
            case FAIL_OPEN:
                return synthetic(ps, true, Source.FAILED_OPEN);
            case FAIL_CLOSED:
                return synthetic(ps, false, Source.FAILED_CLOSED);
            default:
                return local.decideNow(ps, keys, costs, RateLimitBackend.BACKEND_CLOCK, false, lease).decision(ps,
                        Source.LOCAL, lease == null ? null : new Lease(local, ps, keys, costs, lease));
        }
    }

    /** With several policies the strictest failure mode wins: closed over local over open. */
    static FailureMode strictest(Policy[] ps) {
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
                    allowed ? Duration.ZERO : FAILED_CLOSED_RETRY, Duration.ZERO, p.shadow()));
        }
        return new RateLimitDecision(allowed, list, source);
    }
}
