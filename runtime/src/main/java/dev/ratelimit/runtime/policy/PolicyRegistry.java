package dev.ratelimit.runtime.policy;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * The configured policies, resolved and validated once at start-up.
 */
public final class PolicyRegistry {

    private final Map<String, Policy> policies;

    public PolicyRegistry(Map<String, Policy> policies) {
        this.policies = Map.copyOf(policies);
    }

    /** The policy of that name. */
    public Policy get(String name) {
        Policy p = policies.get(name);
        if (p == null) {
            throw new IllegalArgumentException("Unknown rate-limit policy '" + name + "'; configured policies: "
                    + new TreeMap<>(policies).keySet() + ". Define it with " + PolicyValidator.property(name, "limit")
                    + " and " + PolicyValidator.property(name, "window"));
        }
        return p;
    }

    /** Whether a policy of that name exists. */
    public boolean contains(String name) {
        return policies.containsKey(name);
    }

    /** Every policy. */
    public Collection<Policy> all() {
        return policies.values();
    }
}
