package dev.ratelimit.deployment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eclipse.microprofile.config.Config;

import dev.ratelimit.runtime.Algorithm;
import dev.ratelimit.runtime.PathPattern;
import dev.ratelimit.runtime.PolicyValidator;

/**
 * The policies as the build sees them. Policy names must be known at build time (annotations are
 * checked against them); their values may still change at start-up, where they are checked again.
 */
final class BuildTimePolicies {

    private static final Pattern POLICY_PROPERTY = Pattern.compile("quarkus\\.ratelimit\\.policies\\.(\"[^\"]+\"|[^.]+)\\.[a-z-]+");

    private final Config config;
    private final Set<String> names = new TreeSet<>();

    BuildTimePolicies(Config config) {
        this.config = config;
        for (String property : config.getPropertyNames()) {
            Matcher m = POLICY_PROPERTY.matcher(property);
            if (m.matches()) {
                String name = m.group(1);
                names.add(name.startsWith("\"") ? name.substring(1, name.length() - 1) : name);
            }
        }
    }

    Set<String> names() {
        return names;
    }

    private <T> Optional<T> value(String policy, String attribute, Class<T> type) {
        return config.getOptionalValue(PolicyValidator.property(policy, attribute), type);
    }

    /** The capacity (largest admissible cost) of a policy, if its values are known and valid. */
    OptionalInt capacity(String policy) {
        Algorithm alg = Algorithm.fromConfigName(value(policy, "algorithm", String.class).orElse("token-bucket"));
        Optional<Integer> limit = value(policy, "limit", Integer.class);
        Optional<Integer> burst = value(policy, "burst", Integer.class);
        if (alg == null || limit.isEmpty()) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(alg.usesBurst() && burst.isPresent() ? burst.get() : limit.get());
    }

    /** The attribute that sets a policy's capacity: {@code burst} for bucket algorithms with one, else {@code limit}. */
    String capacityAttribute(String policy) {
        Algorithm alg = Algorithm.fromConfigName(value(policy, "algorithm", String.class).orElse("token-bucket"));
        return alg != null && alg.usesBurst() && value(policy, "burst", Integer.class).isPresent() ? "burst" : "limit";
    }

    String key(String policy) {
        return value(policy, "key", String.class).orElse("ip");
    }

    /** Validates every policy's values; each problem becomes one exception. */
    void validate(List<Throwable> errors) {
        for (String name : names) {
            List<String> messages = new ArrayList<>();
            try {
                PolicyValidator.validate(name, value(name, "algorithm", String.class).orElse("token-bucket"),
                        optionalInt(value(name, "limit", Integer.class)), value(name, "window", Duration.class),
                        optionalInt(value(name, "burst", Integer.class)), "ip",
                        value(name, "mode", String.class).orElse("enforce"), messages);
            } catch (IllegalArgumentException e) {
                // a value that does not even convert (limit=abc, window=soon)
                messages.add("Policy '" + name + "': " + e.getMessage());
            }
            for (String m : messages) {
                errors.add(new RateLimitValidationException.InvalidPolicyException(m + " [policy=" + name + "]"));
            }
            String key = key(name);
            String keyProblem = dev.ratelimit.runtime.KeySource.validate(key);
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

    private List<String> paths(String policy) {
        Optional<String> raw = value(policy, "paths", String.class);
        List<String> out = new ArrayList<>();
        raw.ifPresent(v -> {
            for (String p : v.split("(?<!\\\\),")) {
                out.add(p.trim());
            }
        });
        return out;
    }

    private static OptionalInt optionalInt(Optional<Integer> v) {
        return v.map(OptionalInt::of).orElse(OptionalInt.empty());
    }
}
