package dev.ratelimit.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

import org.eclipse.microprofile.config.ConfigProvider;

import dev.ratelimit.runtime.policy.Algorithm;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.PathPattern;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.policy.PolicyProperties;
import dev.ratelimit.runtime.policy.PolicyRegistry;
import dev.ratelimit.runtime.policy.PolicyValidator;
import io.quarkus.runtime.configuration.ConfigurationException;

/** The policies of the runtime configuration, resolved and validated once at start-up. */
final class ConfiguredPolicies {

    private ConfiguredPolicies() {
    }

    /** Resolves every policy; fails with one message per problem. */
    public static PolicyRegistry from(RateLimitRuntimeConfig config) {
        return from(config, new PolicyProperties(ConfigProvider.getConfig()));
    }

    /**
     * Resolves every policy from the mapping, each attribute taken from the spelling that set it when the mapping
     * read another one (see {@link PolicyProperties}); fails with one message per problem.
     */
    static PolicyRegistry from(RateLimitRuntimeConfig config, PolicyProperties spelled) {
        List<String> errors = new ArrayList<>();
        Map<String, Policy> resolved = new TreeMap<>();
        config.policies().forEach((name, p) -> {
            int before = errors.size();
            String algorithm = spelled.value(name, "algorithm", String.class).orElse(p.algorithm());
            OptionalInt limit = orElse(spelled.value(name, "limit", Integer.class), p.limit());
            Optional<Duration> window = spelled.value(name, "window", Duration.class).or(p::window);
            OptionalInt burst = orElse(spelled.value(name, "burst", Integer.class), p.burst());
            String key = spelled.value(name, "key", String.class).orElse(p.key());
            String mode = spelled.value(name, "mode", String.class).orElse(p.mode());
            List<String> paths = spelled.values(name, "paths").or(p::paths).orElse(List.of());
            List<String> methods = spelled.values(name, "methods").or(p::methods).orElse(List.of());
            FailureMode onFailure = spelled.value(name, "on-failure", FailureMode.class).or(p::onFailure)
                    .orElse(config.onFailure());
            PolicyValidator.validate(name, algorithm, limit, window, burst, key, mode, errors);
            for (String path : paths) {
                String problem = PathPattern.problem(path);
                if (problem != null) {
                    errors.add(String.format("Policy '%s' has path '%s': %s (property %s)", name, path, problem,
                            PolicyValidator.property(name, "paths")));
                }
            }
            if (errors.size() == before) {
                long l = limit.getAsInt();
                resolved.put(name, new Policy(name, Algorithm.fromConfigName(algorithm), l, window.get(),
                        burst.isPresent() ? burst.getAsInt() : l, key, "shadow".equals(mode), onFailure, paths,
                        methods.stream().map(m -> m.toUpperCase(java.util.Locale.ROOT)).toList()));
            }
        });
        if (!errors.isEmpty()) {
            throw new ConfigurationException("Invalid rate-limit configuration (" + errors.size() + " problem"
                    + (errors.size() > 1 ? "s" : "") + "):\n  - " + String.join("\n  - ", errors));
        }
        return new PolicyRegistry(resolved);
    }

    private static OptionalInt orElse(Optional<Integer> spelled, OptionalInt mapped) {
        return spelled.isPresent() ? OptionalInt.of(spelled.get()) : mapped;
    }

}
