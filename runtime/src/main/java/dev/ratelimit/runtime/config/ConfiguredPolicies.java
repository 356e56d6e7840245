package dev.ratelimit.runtime.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

import org.eclipse.microprofile.config.ConfigProvider;

import dev.ratelimit.runtime.config.RateLimitRuntimeConfig.PlanConfig;
import dev.ratelimit.runtime.config.RateLimitRuntimeConfig.PolicyConfig;
import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.LimitValues;
import dev.ratelimit.runtime.policy.PathPattern;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.policy.PolicyMode;
import dev.ratelimit.runtime.policy.PolicyProperties;
import dev.ratelimit.runtime.policy.PolicyRegistry;
import dev.ratelimit.runtime.policy.PolicyValidator;

/** The policies of the runtime configuration, resolved and validated once at start-up (see {@link StartupChecks}). */
public final class ConfiguredPolicies {

    private ConfiguredPolicies() {
    }

    /**
     * The valid policies of the configuration, for readers that must not create the limiter (the OpenAPI document is
     * prepared before the Redis clients exist); the invalid ones are left out, {@link StartupChecks} fails the start.
     */
    public static PolicyRegistry valid(RateLimitRuntimeConfig config) {
        return from(config, new ArrayList<>());
    }

    /**
     * Resolves every policy and its plans from the mapping, each attribute taken from the spelling that set it when
     * the mapping read another one (see {@link PolicyProperties}); adds one message per problem to {@code errors} and
     * leaves the policy out.
     */
    static PolicyRegistry from(RateLimitRuntimeConfig config, List<String> errors) {
        PolicyProperties spelled = new PolicyProperties(ConfigProvider.getConfig());
        Map<String, Policy> resolved = new TreeMap<>();
        Map<String, Map<String, Policy>> plans = new TreeMap<>();
        config.policies().forEach((name, p) -> {
            int before = errors.size();
            String algorithm = spelled.value(name, "algorithm", String.class).orElse(p.algorithm());
            LimitValues values = new LimitValues(orElse(spelled.value(name, "limit", Integer.class), p.limit()),
                    spelled.value(name, "window", Duration.class).or(p::window),
                    orElse(spelled.value(name, "burst", Integer.class), p.burst()));
            String key = spelled.value(name, "key", String.class).orElse(p.key());
            String mode = spelled.value(name, "mode", String.class).orElse(p.mode().configName());
            List<String> paths = spelled.values(name, "paths").or(p::paths).orElse(List.of());
            List<String> methods = spelled.values(name, "methods").or(p::methods).orElse(List.of());
            FailureMode onFailure = spelled.value(name, "on-failure", FailureMode.class).or(p::onFailure)
                    .orElse(config.onFailure());
            PolicyValidator.validate(name, algorithm, values.limit(), values.window(), values.burst(), key, mode, errors);
            for (String path : paths) {
                String problem = PathPattern.problem(path);
                if (problem != null) {
                    errors.add(String.format("Policy '%s' has path '%s': %s (property %s)", name, path, problem,
                            PolicyValidator.property(name, "paths")));
                }
            }
            Map<String, LimitValues> planValues = planValues(name, p, spelled);
            planValues.forEach((plan, own) -> PolicyValidator.validatePlan(name, plan, algorithm, values, own, errors));
            if (errors.size() == before) {
                Algorithm alg = Algorithm.fromConfigName(algorithm);
                boolean shadow = PolicyMode.fromConfigName(mode) == PolicyMode.SHADOW;
                List<String> upperMethods = methods.stream().map(m -> m.toUpperCase(Locale.ROOT)).toList();
                // a plan is the policy with other values: same name, hence the same Redis key
                Function<LimitValues, Policy> policy = v -> {
                    long limit = v.limit().getAsInt();
                    return new Policy(name, alg, limit, v.window().get(), v.burst().isPresent() ? v.burst().getAsInt()
                            : limit, key, shadow, onFailure, paths, upperMethods);
                };
                resolved.put(name, policy.apply(values));
                Map<String, Policy> named = new TreeMap<>();
                planValues.forEach((plan, own) -> named.put(plan, policy.apply(own.orElse(values))));
                plans.put(name, named);
            }
        });
        return new PolicyRegistry(resolved, plans);
    }

    /** Every plan of a policy, by name, with the values it sets itself. */
    private static Map<String, LimitValues> planValues(String name, PolicyConfig p, PolicyProperties spelled) {
        Set<String> names = new TreeSet<>(p.plans().keySet());
        names.addAll(spelled.planNames(name));
        Map<String, LimitValues> values = new TreeMap<>();
        for (String plan : names) {
            Optional<PlanConfig> mapped = Optional.ofNullable(p.plans().get(plan));
            values.put(plan, new LimitValues(
                    orElse(spelled.planValue(name, plan, "limit", Integer.class),
                            mapped.map(PlanConfig::limit).orElse(OptionalInt.empty())),
                    spelled.planValue(name, plan, "window", Duration.class).or(() -> mapped.flatMap(PlanConfig::window)),
                    orElse(spelled.planValue(name, plan, "burst", Integer.class),
                            mapped.map(PlanConfig::burst).orElse(OptionalInt.empty()))));
        }
        return values;
    }

    private static OptionalInt orElse(Optional<Integer> spelled, OptionalInt mapped) {
        return spelled.isPresent() ? OptionalInt.of(spelled.get()) : mapped;
    }

}
