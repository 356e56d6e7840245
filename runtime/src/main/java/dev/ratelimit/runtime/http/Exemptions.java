package dev.ratelimit.runtime.http;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.Exemption;
import dev.ratelimit.runtime.config.PolicyConfig;
import dev.ratelimit.runtime.key.AddressBlocks;
import dev.ratelimit.runtime.key.KeyResolution;
import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import dev.ratelimit.runtime.metrics.RateLimitMetrics.Outcome;
import io.vertx.ext.web.RoutingContext;

/**
 * The requests a policy does not count: client addresses in its {@code exempt-addresses}, and those an
 * {@link Exemption} bean of the application names. Asked inside HTTP requests only; each exempt request is counted
 * under the outcome {@code exempt}.
 */
final class Exemptions {

    private final Map<String, AddressBlocks> addresses = new HashMap<>();
    private final List<Exemption> beans;
    private final KeyResolution keys;
    private final RateLimitMetrics metrics;
    private final ResolverFailures failures;

    Exemptions(Map<String, PolicyConfig> policies, List<Exemption> beans, KeyResolution keys, RateLimitMetrics metrics,
            ResolverFailures failures) {
        policies.forEach((name, p) -> p.exemptAddresses().filter(l -> !l.isEmpty())
                .ifPresent(l -> addresses.put(name, AddressBlocks.of(l))));
        this.beans = List.copyOf(beans);
        this.keys = keys;
        this.metrics = metrics;
        this.failures = failures;
    }

    /** Whether any policy may exempt a request: without, {@link #exempt} is never asked. */
    boolean any() {
        return !addresses.isEmpty() || !beans.isEmpty();
    }

    /**
     * Whether {@code policy} does not count this request ({@code rc} null, outside HTTP: never); {@code count}: count it
     * under {@code exempt} if so.
     */
    boolean exempt(String policy, RoutingContext rc, boolean count) {
        if (rc == null) {
            return false;
        }
        AddressBlocks blocks = addresses.get(policy);
        if (blocks != null && blocks.contains(keys.address(rc))) {
            return counted(policy, count);
        }
        for (int i = 0; i < beans.size(); i++) {
            try {
                if (beans.get(i).exempt(policy, rc.request())) {
                    return counted(policy, count);
                }
            } catch (RuntimeException e) {
                failures.failed(policy, "exemption", e, "the request is counted");
            }
        }
        return false;
    }

    private boolean counted(String policy, boolean count) {
        if (count) {
            metrics.decided(policy, Outcome.EXEMPT);
        }
        return true;
    }
}
