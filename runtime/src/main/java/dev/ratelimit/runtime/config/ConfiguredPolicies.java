package dev.ratelimit.runtime.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.config.PolicyConfig.PlanConfig;
import dev.ratelimit.runtime.config.PolicyProblem.Kind;
import dev.ratelimit.runtime.key.AddressBlocks;
import dev.ratelimit.runtime.key.KeySource;
import dev.ratelimit.runtime.policy.CountedOutcomes;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.LimitValues;
import dev.ratelimit.runtime.policy.PathPattern;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.policy.PolicyMode;
import dev.ratelimit.runtime.policy.PolicyRegistry;
import dev.ratelimit.runtime.policy.PolicyValidator;

/**
 * The policies of the configuration mapping, checked and resolved: at start-up from the values that count (see
 * {@link StartupChecks}), and by the build from the values it can see, so that both report the same problems.
 */
public final class ConfiguredPolicies {

    private ConfiguredPolicies() {
    }

    /**
     * The valid policies of the configuration, for readers that must not create the limiter (the OpenAPI document is
     * prepared before the Redis clients exist); the invalid ones are left out, {@link StartupChecks} fails the start.
     */
    public static PolicyRegistry valid(RateLimitRuntimeConfig config) {
        return resolve(config.policies(), config.onFailure(), new ArrayList<>());
    }

    /**
     * Resolves every policy and its plans; adds one problem per wrong value, key or path to {@code problems} and
     * leaves that policy out.
     *
     * @param onFailure the failure mode of a policy that sets none
     */
    public static PolicyRegistry resolve(Map<String, PolicyConfig> policies, FailureMode onFailure,
            List<PolicyProblem> problems) {
        Map<String, Policy> resolved = new TreeMap<>();
        Map<String, Map<String, Policy>> plans = new TreeMap<>();
        // by name: problems reported in a stable order
        new TreeMap<>(policies).forEach((name, p) -> {
            int before = problems.size();
            Algorithm algorithm = p.algorithm();
            LimitValues values = values(p);
            List<String> messages = new ArrayList<>();
            PolicyValidator.validate(name, algorithm, values, messages);
            messages.forEach(m -> problems.add(new PolicyProblem(Kind.VALUE, name, null, m)));
            String keyProblem = KeySource.validate(p.key());
            if (keyProblem != null) {
                problems.add(new PolicyProblem(Kind.KEY, name, null, String.format("Policy '%s' has key '%s': %s; fix %s",
                        name, p.key(), keyProblem, PolicyValidator.property(name, "key"))));
            }
            List<String> paths = p.paths().orElse(List.of());
            for (String path : paths) {
                String problem = PathPattern.problem(path);
                if (problem != null) {
                    problems.add(new PolicyProblem(Kind.PATH, name, null, String.format(
                            "Policy '%s' has path '%s': %s; fix %s", name, path, problem,
                            PolicyValidator.property(name, "paths"))));
                }
            }
            String countProblem = CountedOutcomes.problem(p.count());
            if (countProblem != null) {
                problems.add(new PolicyProblem(Kind.VALUE, name, null, String.format("Policy '%s' has count %s: %s; fix %s",
                        name, p.count(), countProblem, PolicyValidator.property(name, "count"))));
            } else if (algorithm.holdsLeases() && !CountedOutcomes.parse(p.count()).all()) {
                problems.add(new PolicyProblem(Kind.VALUE, name, null, String.format("Policy '%s' has count %s with "
                        + "algorithm=concurrency: a slot is freed when the request ends, whatever its outcome; remove "
                        + "%s, or add a rate policy that counts by outcome", name, p.count(),
                        PolicyValidator.property(name, "count"))));
            }
            if (p.blockFor().isPresent()) {
                List<String> lockout = new ArrayList<>();
                PolicyValidator.validateLockout(name, algorithm, p.mode() == PolicyMode.SHADOW, p.blockFor().get(),
                        lockout);
                lockout.forEach(m -> problems.add(new PolicyProblem(Kind.VALUE, name, null, m)));
            }
            String leaseProblem = PolicyValidator.leaseProblem(name, algorithm, p.lease(),
                    CountedOutcomes.problem(p.count()) == null && CountedOutcomes.parse(p.count()).all(), values);
            if (leaseProblem != null) {
                problems.add(new PolicyProblem(Kind.VALUE, name, null, leaseProblem));
            }
            if (p.maxWait().isPresent()) {
                String waitProblem = PolicyValidator.maxWaitProblem(name, algorithm, p.mode() == PolicyMode.SHADOW,
                        p.maxWait().get());
                if (waitProblem != null) {
                    problems.add(new PolicyProblem(Kind.VALUE, name, null, waitProblem));
                }
            }
            for (String entry : p.exemptAddresses().orElse(List.of())) {
                String problem = AddressBlocks.problem(entry);
                if (problem != null) {
                    problems.add(new PolicyProblem(Kind.VALUE, name, null, String.format(
                            "Policy '%s' has exempt address '%s': %s; fix %s", name, entry, problem,
                            PolicyValidator.property(name, "exempt-addresses"))));
                }
            }
            Map<String, LimitValues> planValues = planValues(p);
            planValues.forEach((plan, own) -> {
                List<String> planMessages = new ArrayList<>();
                PolicyValidator.validatePlan(name, plan, algorithm, values, own, planMessages);
                planMessages.forEach(m -> problems.add(new PolicyProblem(Kind.VALUE, name, plan, m)));
            });
            if (problems.size() == before) {
                boolean shadow = p.mode() == PolicyMode.SHADOW;
                FailureMode failureMode = p.onFailure().orElse(onFailure);
                List<String> methods = p.methods().orElse(List.of()).stream().map(m -> m.toUpperCase(Locale.ROOT))
                        .toList();
                // a plan is the policy with other values: same name, hence the same Redis key
                Function<LimitValues, Policy> policy = v -> {
                    long limit = v.limit().getAsInt();
                    return new Policy(name, algorithm, limit, v.window().get(), v.burst().isPresent()
                            ? v.burst().getAsInt() : limit, p.key(), shadow, failureMode, paths, methods,
                            p.blockFor().orElse(Duration.ZERO), CountedOutcomes.parse(p.count()), p.overrides(),
                            PolicyValidator.leaseUnits(p.lease()), p.maxWait().orElse(Duration.ZERO));
                };
                resolved.put(name, policy.apply(values));
                Map<String, Policy> named = new TreeMap<>();
                planValues.forEach((plan, own) -> named.put(plan, policy.apply(own.orElse(values))));
                plans.put(name, named);
            }
        });
        return new PolicyRegistry(resolved, plans);
    }

    /** A policy's own limit, window and burst, as configured. */
    public static LimitValues values(PolicyConfig p) {
        return new LimitValues(p.limit(), p.window(), p.burst());
    }

    /** Every plan of a policy, by name, with the values it sets itself. */
    public static Map<String, LimitValues> planValues(PolicyConfig p) {
        Map<String, LimitValues> values = new TreeMap<>();
        for (Map.Entry<String, PlanConfig> plan : p.plans().entrySet()) {
            PlanConfig c = plan.getValue();
            values.put(plan.getKey(), new LimitValues(c.limit(), c.window(), c.burst()));
        }
        return values;
    }
}
