package dev.ratelimit.runtime;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The configured policies, resolved and validated once at start-up.
 */
public final class PolicyRegistry {

    private final Map<String, Policy> policies;

    PolicyRegistry(Map<String, Policy> policies) {
        this.policies = Map.copyOf(policies);
    }

    /** Resolves every policy; fails with one message per problem. */
    public static PolicyRegistry from(RateLimitRuntimeConfig config) {
        List<String> errors = new ArrayList<>();
        Map<String, Policy> resolved = new TreeMap<>();
        config.policies().forEach((name, p) -> {
            int before = errors.size();
            PolicyValidator.validate(name, p.algorithm(), p.limit(), p.window(), p.burst(), p.key(), p.mode(), errors);
            for (String path : p.paths().orElse(List.of())) {
                String problem = PathPattern.problem(path);
                if (problem != null) {
                    errors.add(String.format("Policy '%s' has path '%s': %s (property %s)", name, path, problem,
                            PolicyValidator.property(name, "paths")));
                }
            }
            if (errors.size() == before) {
                long limit = p.limit().getAsInt();
                resolved.put(name, new Policy(name, Algorithm.fromConfigName(p.algorithm()), limit, p.window().get(),
                        p.burst().isPresent() ? p.burst().getAsInt() : limit, p.key(), "shadow".equals(p.mode()),
                        p.onFailure().orElse(config.onFailure()), p.paths().orElse(List.of()),
                        p.methods().orElse(List.of()).stream().map(m -> m.toUpperCase(java.util.Locale.ROOT)).toList()));
            }
        });
        if (!errors.isEmpty()) {
            throw new ConfigurationException("Invalid rate-limit configuration (" + errors.size() + " problem"
                    + (errors.size() > 1 ? "s" : "") + "):\n  - " + String.join("\n  - ", errors));
        }
        return new PolicyRegistry(resolved);
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
