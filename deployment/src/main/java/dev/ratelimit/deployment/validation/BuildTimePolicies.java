package dev.ratelimit.deployment.validation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;

import org.eclipse.microprofile.config.Config;

import dev.ratelimit.runtime.config.RateLimitRuntimeConfig.PolicyConfig;
import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.policy.LimitValues;
import dev.ratelimit.runtime.policy.PathPattern;
import dev.ratelimit.runtime.policy.PolicyProperties;
import dev.ratelimit.runtime.policy.PolicyValidator;

/**
 * The policies and their plans as the build sees them. Policy names must be known at build time (annotations are
 * checked against them); their values may still change at start-up, where they are checked again.
 */
public final class BuildTimePolicies {

    private final PolicyProperties properties;

    public BuildTimePolicies(Config config) {
        this.properties = new PolicyProperties(config);
    }

    public Set<String> names() {
        return properties.names();
    }

    private <T> Optional<T> value(String policy, String attribute, Class<T> type) {
        return properties.value(policy, attribute, type);
    }

    /** The capacity (largest admissible cost) of a policy, if its values are known and valid. */
    public OptionalInt capacity(String policy) {
        Algorithm alg = algorithm(policy);
        return alg == null ? OptionalInt.empty() : values(policy).capacity(alg);
    }

    /** The attribute that sets a policy's capacity: {@code burst} for bucket algorithms with one, else {@code limit}. */
    public String capacityAttribute(String policy) {
        Algorithm alg = algorithm(policy);
        return alg == null ? "limit" : values(policy).capacityAttribute(alg);
    }

    /** The names of a policy's plans. */
    public Set<String> plans(String policy) {
        return properties.planNames(policy);
    }

    /**
     * The capacity of each plan of a policy whose values the build knows and can read, with the property that sets
     * it (the plan's own: setting it is how that plan's capacity changes).
     */
    public Map<String, PlanCapacity> planCapacities(String policy) {
        Map<String, PlanCapacity> capacities = new TreeMap<>();
        Algorithm alg = algorithm(policy);
        if (alg == null) {
            return capacities;
        }
        for (String plan : plans(policy)) {
            try {
                LimitValues values = planValues(policy, plan).orElse(values(policy));
                values.capacity(alg).ifPresent(c -> capacities.put(plan, new PlanCapacity(c,
                        PolicyValidator.planProperty(policy, plan, values.capacityAttribute(alg)))));
            } catch (IllegalArgumentException e) {
                // a value that does not convert: reported by validate()
            }
        }
        return capacities;
    }

    /** What one plan can ever admit, and the property that sets it. */
    public record PlanCapacity(int units, String property) {
    }

    private Algorithm algorithm(String policy) {
        return Algorithm.fromConfigName(value(policy, "algorithm", String.class).orElse(PolicyConfig.DEFAULT_ALGORITHM));
    }

    private LimitValues values(String policy) {
        return new LimitValues(optionalInt(value(policy, "limit", Integer.class)), value(policy, "window", Duration.class),
                optionalInt(value(policy, "burst", Integer.class)));
    }

    private LimitValues planValues(String policy, String plan) {
        return new LimitValues(optionalInt(properties.planValue(policy, plan, "limit", Integer.class)),
                properties.planValue(policy, plan, "window", Duration.class),
                optionalInt(properties.planValue(policy, plan, "burst", Integer.class)));
    }

    public String key(String policy) {
        return value(policy, "key", String.class).orElse(PolicyConfig.DEFAULT_KEY);
    }

    /** Validates every policy's values; each problem becomes one exception. */
    public void validate(List<Throwable> errors) {
        for (String name : names()) {
            List<String> messages = new ArrayList<>();
            try {
                PolicyValidator.validate(name, value(name, "algorithm", String.class).orElse(PolicyConfig.DEFAULT_ALGORITHM),
                        optionalInt(value(name, "limit", Integer.class)), value(name, "window", Duration.class),
                        optionalInt(value(name, "burst", Integer.class)), PolicyConfig.DEFAULT_KEY,
                        value(name, "mode", String.class).orElse(PolicyConfig.DEFAULT_MODE), messages);
            } catch (IllegalArgumentException e) {
                // a value that does not even convert (limit=abc, window=soon)
                messages.add("Policy '" + name + "': " + e.getMessage());
            }
            for (String m : messages) {
                errors.add(new RateLimitValidationException.InvalidPolicyException(m + " [policy=" + name + "]"));
            }
            for (String plan : plans(name)) {
                List<String> planMessages = new ArrayList<>();
                try {
                    // a policy value that does not convert is the policy's problem, reported above
                    LimitValues base = messages.isEmpty() ? values(name) : new LimitValues(OptionalInt.empty(),
                            Optional.empty(), OptionalInt.empty());
                    PolicyValidator.validatePlan(name, plan, value(name, "algorithm", String.class)
                            .orElse(PolicyConfig.DEFAULT_ALGORITHM), base, planValues(name, plan), planMessages);
                } catch (IllegalArgumentException e) {
                    planMessages.add("Plan '" + plan + "' of policy '" + name + "': " + e.getMessage());
                }
                for (String m : planMessages) {
                    errors.add(new RateLimitValidationException.InvalidPolicyException(m + " [policy=" + name
                            + ", plan=" + plan + "]"));
                }
            }
            String key = key(name);
            String keyProblem = dev.ratelimit.runtime.key.KeySource.validate(key);
            if (keyProblem != null) {
                errors.add(new RateLimitValidationException.InvalidKeyException("Policy '" + name + "' has key '" + key
                        + "': " + keyProblem + "; fix " + PolicyValidator.property(name, "key") + " [policy=" + name + "]"));
            }
            for (String path : paths(name)) {
                String problem = PathPattern.problem(path);
                if (problem != null) {
                    errors.add(new RateLimitValidationException.InvalidPathException("Policy '" + name + "' has path '"
                            + path + "': " + problem + "; fix " + PolicyValidator.property(name, "paths") + " [policy="
                            + name + "]"));
                }
            }
        }
    }

    /** A policy attribute's raw value as configured, in whichever spelling it was set (for display). */
    public Optional<String> raw(String policy, String attribute) {
        return value(policy, attribute, String.class);
    }

    /** A plan attribute's raw value as configured, in whichever spelling it was set (for display). */
    public Optional<String> raw(String policy, String plan, String attribute) {
        return properties.planValue(policy, plan, attribute, String.class);
    }

    private List<String> paths(String policy) {
        return properties.values(policy, "paths").orElse(List.of());
    }

    private static OptionalInt optionalInt(Optional<Integer> v) {
        return v.map(OptionalInt::of).orElse(OptionalInt.empty());
    }
}
