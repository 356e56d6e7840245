package dev.ratelimit.runtime.backend;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.runtime.policy.Policy;

/**
 * A backend's reply as a decision. Both backends reply the scripts' layout: {@code [all admitted (1/0), then per
 * policy: admitted, remaining, retry-after ms (-1: never), reset ms]}.
 */
public final class BackendReplies {

    private BackendReplies() {
    }

    /** The decision a reply of this layout describes, for these policies, from this source. */
    public static RateLimitDecision decision(Policy[] ps, long[] r, Source source) {
        // an immutable list, which RateLimitDecision keeps as is (List.copyOf of one returns it)
        PolicyDecision[] each = new PolicyDecision[ps.length];
        for (int i = 0; i < ps.length; i++) {
            Policy p = ps[i];
            int b = 1 + 4 * i;
            long retryMs = r[b + 2] < 0 ? p.window().toMillis() : r[b + 2];
            each[i] = new PolicyDecision(p.name(), p.limit(), p.window(), r[b] == 1, Math.max(0, r[b + 1]),
                    Duration.ofMillis(retryMs), Duration.ofMillis(Math.max(0, r[b + 3])), p.shadow());
        }
        return new RateLimitDecision(r[0] == 1, each.length == 1 ? List.of(each[0]) : List.of(each), source);
    }
}
