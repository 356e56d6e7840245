package dev.ratelimit.deployment.validation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

import org.eclipse.microprofile.config.Config;

import dev.ratelimit.runtime.RateLimitRuntimeConfig.PolicyConfig;
import dev.ratelimit.runtime.policy.Algorithm;
import dev.ratelimit.runtime.policy.PathPattern;
import dev.ratelimit.runtime.policy.PolicyProperties;
import dev.ratelimit.runtime.policy.PolicyValidator;

/**
 * The policies as the build sees them. Policy names must be known at build time (annotations are
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
        Algorithm alg = Algorithm.fromConfigName(value(policy, "algorithm", String.class).orElse(PolicyConfig.DEFAULT_ALGORITHM));
        Optional<Integer> limit = value(policy, "limit", Integer.class);
        Optional<Integer> burst = value(policy, "burst", Integer.class);
        if (alg == null || limit.isEmpty()) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(alg.usesBurst() && burst.isPresent() ? burst.get() : limit.get());
    }

    /** The attribute that sets a policy's capacity: {@code burst} for bucket algorithms with one, else {@code limit}. */
    public String capacityAttribute(String policy) {
        Algorithm alg = Algorithm.fromConfigName(value(policy, "algorithm", String.class).orElse(PolicyConfig.DEFAULT_ALGORITHM));
        return alg != null && alg.usesBurst() && value(policy, "burst", Integer.class).isPresent() ? "burst" : "limit";
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
            String key = key(name);
            String keyProblem = dev.ratelimit.runtime.policy.KeySource.validate(key);
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

    private List<String> paths(String policy) {
        return properties.values(policy, "paths").orElse(List.of());
    }

    private static OptionalInt optionalInt(Optional<Integer> v) {
        return v.map(OptionalInt::of).orElse(OptionalInt.empty());
    }
}
