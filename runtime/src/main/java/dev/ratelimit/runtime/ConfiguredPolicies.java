package dev.ratelimit.runtime;

import java.time.Duration;
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
import dev.ratelimit.runtime.policy.PolicyMode;
import dev.ratelimit.runtime.policy.PolicyProperties;
import dev.ratelimit.runtime.policy.PolicyRegistry;
import dev.ratelimit.runtime.policy.PolicyValidator;

/** The policies of the runtime configuration, resolved and validated once at start-up (see {@link StartupChecks}). */
final class ConfiguredPolicies {

    private ConfiguredPolicies() {
    }

    /**
     * Resolves every policy from the mapping, each attribute taken from the spelling that set it when the mapping
     * read another one (see {@link PolicyProperties}); adds one message per problem to {@code errors} and leaves
     * the policy out.
     */
    static PolicyRegistry from(RateLimitRuntimeConfig config, List<String> errors) {
        PolicyProperties spelled = new PolicyProperties(ConfigProvider.getConfig());
        Map<String, Policy> resolved = new TreeMap<>();
        config.policies().forEach((name, p) -> {
            int before = errors.size();
            String algorithm = spelled.value(name, "algorithm", String.class).orElse(p.algorithm());
            OptionalInt limit = orElse(spelled.value(name, "limit", Integer.class), p.limit());
            Optional<Duration> window = spelled.value(name, "window", Duration.class).or(p::window);
            OptionalInt burst = orElse(spelled.value(name, "burst", Integer.class), p.burst());
            String key = spelled.value(name, "key", String.class).orElse(p.key());
            String mode = spelled.value(name, "mode", String.class).orElse(p.mode().configName());
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
                        burst.isPresent() ? burst.getAsInt() : l, key, PolicyMode.fromConfigName(mode) == PolicyMode.SHADOW, onFailure, paths,
                        methods.stream().map(m -> m.toUpperCase(java.util.Locale.ROOT)).toList()));
            }
        });
        return new PolicyRegistry(resolved);
    }

    private static OptionalInt orElse(Optional<Integer> spelled, OptionalInt mapped) {
        return spelled.isPresent() ? OptionalInt.of(spelled.get()) : mapped;
    }

}
