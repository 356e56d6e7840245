package dev.ratelimit.runtime.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

import dev.ratelimit.runtime.key.KeySource;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.policy.PolicyRegistry;
import dev.ratelimit.runtime.policy.PolicyValidator;
import dev.ratelimit.runtime.policy.RateLimitSpec;
import dev.ratelimit.runtime.policy.RateLimitedMethods;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * Every check of the configuration the start makes, in one place and one report: the policies, the settings, the
 * annotated methods against the policies and their plans as configured at start-up (the build saw only the values it
 * was given), the keys naming {@code KeyResolver} beans, and at most one {@code PlanResolver}: what exists only at run
 * time, and that {@code quarkus.ratelimit.backend} names a backend the application has. The build checks what it can
 * see earlier (see the deployment's validator). Closed sets of values (algorithm, mode, failure mode, header families) are enums of the configuration mapping: SmallRye Config rejects a
 * value outside them, naming the property and the accepted values, before the checks here run.
 */
public final class StartupChecks {

    private StartupChecks() {
    }

    /**
     * The configured policies, once every check passed.
     *
     * @param resolverNamed whether a {@code KeyResolver} bean has this name
     * @param planResolvers the classes of the {@code PlanResolver} beans when more than one could be used, else empty
     * @param backends the names of the backends the application has (see {@code BackendProvider})
     * @throws ConfigurationException listing every problem, each naming the property or annotation to fix
     */
    public static PolicyRegistry verify(RateLimitRuntimeConfig config, Predicate<String> resolverNamed,
            List<String> planResolvers, Set<String> backends) {
        List<PolicyProblem> problems = new ArrayList<>();
        PolicyRegistry policies = ConfiguredPolicies.resolve(config.policies(), config.onFailure(), problems);
        List<String> errors = new ArrayList<>(problems.stream().map(PolicyProblem::message).toList());
        String backend = backendName(config);
        if (!backends.contains(backend)) {
            errors.add("quarkus.ratelimit.backend is '" + config.backend() + "', which names no backend of this "
                    + "application: use one of " + String.join(", ", new TreeSet<>(backends)));
        }
        settings(config, errors);
        methods(policies, config, errors);
        keys(policies, resolverNamed, errors);
        if (planResolvers.size() > 1) {
            errors.add("Several PlanResolver beans " + planResolvers + ": the plan of a request must come from one; "
                    + "keep one, or choose one with @Alternative and @Priority");
        }
        if (!errors.isEmpty()) {
            throw new ConfigurationException("Invalid rate-limit configuration (" + errors.size() + " problem"
                    + (errors.size() > 1 ? "s" : "") + "):\n  - " + String.join("\n  - ", errors));
        }
        return policies;
    }

    /**
     * Refuses policies with {@code overrides=true} when the backend deciding ({@code backend}) keeps no overrides (a
     * backend another extension contributes may not): they would be decided on their own values, silently.
     *
     * @throws ConfigurationException naming the policies and what to change
     */
    public static void verifyOverridesKept(PolicyRegistry policies, String backend, boolean kept) {
        if (kept) {
            return;
        }
        List<String> taking = new ArrayList<>();
        for (Policy p : policies.all()) {
            if (p.overrides()) {
                taking.add(PolicyValidator.property(p.name(), "overrides") + "=true");
            }
        }
        if (!taking.isEmpty()) {
            boolean one = taking.size() == 1;
            throw new ConfigurationException("The rate-limit backend '" + backend + "' keeps no per-key overrides, "
                    + "which " + String.join(", ", new TreeSet<>(taking)) + (one ? " asks" : " ask") + " for: remove "
                    + (one ? "it" : "them") + ", or use quarkus.ratelimit.backend=redis or local");
        }
    }

    /** The backend {@code quarkus.ratelimit.backend} names, as a provider names itself: trimmed, lower case. */
    public static String backendName(RateLimitRuntimeConfig config) {
        return config.backend().trim().toLowerCase(Locale.ROOT);
    }

    private static void settings(RateLimitRuntimeConfig config, List<String> errors) {
        int status = config.failClosedStatus();
        if (status != 429 && status != 503) {
            errors.add("quarkus.ratelimit.fail-closed-status is " + status
                    + ": use 429 (Too Many Requests) or 503 (Service Unavailable)");
        }
        atLeastOne(errors, "quarkus.ratelimit.local.max-keys", config.local().maxKeys(),
                "set it to 1 or more (the most keys the in-process limiter holds state for)");
        if (backendName(config).equals("redis")) {
            atLeastOne(errors, "quarkus.ratelimit.redis.max-batch", config.redis().maxBatch(),
                    "set it to 1 or more (1 sends every decision alone)");
            if (config.redis().connections().isPresent()) {
                atLeastOne(errors, "quarkus.ratelimit.redis.connections", config.redis().connections().getAsInt(),
                        "set it to 1 or more, or leave it unset for one per event loop");
            }
            if (config.circuitBreaker().enabled()) {
                atLeastOne(errors, "quarkus.ratelimit.circuit-breaker.failure-threshold",
                        config.circuitBreaker().failureThreshold(), "it must be positive");
            }
            if (config.denyCache().enabled()) {
                atLeastOne(errors, "quarkus.ratelimit.deny-cache.max-entries", config.denyCache().maxEntries(),
                        "it must be positive (or disable the cache with quarkus.ratelimit.deny-cache.enabled=false)");
            }
        }
    }

    private static void atLeastOne(List<String> errors, String property, int value, String advice) {
        if (value < 1) {
            errors.add(property + " is " + value + ": " + advice);
        }
    }

    /** Every annotation names a policy configured at start-up, with a cost it can admit. */
    private static void methods(PolicyRegistry policies, RateLimitRuntimeConfig config, List<String> errors) {
        RateLimitedMethods.all().forEach((method, specs) -> {
            for (RateLimitSpec s : specs) {
                if (!policies.contains(s.policy())) {
                    if (config.policies().containsKey(s.policy())) {
                        continue; // configured, with a problem of its own already reported
                    }
                    errors.add("@RateLimit(\"" + s.policy() + "\") on " + method + " names a policy that is not "
                            + "configured at start-up: define " + PolicyValidator.property(s.policy(), "limit") + " and "
                            + PolicyValidator.property(s.policy(), "window"));
                    continue;
                }
                Policy p = policies.get(s.policy());
                if (s.cost() > p.capacity()) {
                    errors.add("@RateLimit(value=\"" + s.policy() + "\", cost=" + s.cost() + ") on " + method
                            + " can never be admitted: the policy's capacity is " + p.capacity() + "; raise "
                            + PolicyValidator.property(p.name(), capacityAttribute(p)) + " or lower the cost");
                }
                // on a plan with a smaller capacity, the method would refuse every request of that plan's clients
                policies.plans(s.policy()).forEach((plan, onPlan) -> {
                    if (s.cost() > onPlan.capacity()) {
                        errors.add("@RateLimit(value=\"" + s.policy() + "\", cost=" + s.cost() + ") on " + method
                                + " can never be admitted on plan '" + plan + "': its capacity is " + onPlan.capacity()
                                + "; raise " + PolicyValidator.planProperty(p.name(), plan, capacityAttribute(onPlan))
                                + " or lower the cost");
                    }
                });
            }
        });
    }

    private static String capacityAttribute(Policy p) {
        return p.algorithm().usesBurst() && p.burst() != p.limit() ? "burst" : "limit";
    }

    /** Every key that is not a built-in source names a {@code KeyResolver} bean. */
    private static void keys(PolicyRegistry policies, Predicate<String> resolverNamed, List<String> errors) {
        for (Policy p : policies.all()) {
            key(p.key(), PolicyValidator.property(p.name(), "key"), resolverNamed, errors);
        }
        RateLimitedMethods.all().forEach((method, specs) -> {
            for (RateLimitSpec s : specs) {
                if (s.key() != null && !s.key().isEmpty()) {
                    key(s.key(), "@RateLimit(key) on " + method, resolverNamed, errors);
                }
            }
        });
    }

    private static void key(String key, String where, Predicate<String> resolverNamed, List<String> errors) {
        if (KeySource.parse(key) instanceof KeySource.Resolver && !resolverNamed.test(key)) {
            errors.add("Key '" + key + "' (" + where + ") is neither ip, principal, global nor header:<Name>, "
                    + "and no KeyResolver bean is named so: add @Identifier(\"" + key
                    + "\") to a KeyResolver bean or fix the key");
        }
    }
}
