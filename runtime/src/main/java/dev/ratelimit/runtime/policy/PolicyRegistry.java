package dev.ratelimit.runtime.policy;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.jboss.logging.Logger;

/**
 * The configured policies and their plans, resolved and validated once at start-up.
 * <p>
 * A plan is its policy with another limit, window or burst: the same name, key, algorithm and Redis key, so a client
 * moving between plans keeps what it used. The policy's own values are its base plan.
 */
public final class PolicyRegistry {

    private static final Logger LOG = Logger.getLogger(PolicyRegistry.class);
    /**
     * The most unknown plan names remembered (and logged) per policy. The names come from the application, possibly
     * from a request header: without a bound, a client sending a new name each time would grow memory and the log.
     */
    static final int MAX_UNKNOWN_PLANS_LOGGED = 100;

    private final Map<String, Policy> policies;
    /** Per policy, an array of it (its base plan) alone, made once: see {@link #alone}. */
    private final Map<String, Policy[]> alone;
    /** Per policy that has plans, its plans by name. */
    private final Map<String, Map<String, Policy>> plans;
    /** Per policy, the unknown plan names already logged. */
    private final Map<String, Set<String>> unknownPlans = new ConcurrentHashMap<>();
    /** The policies that met more unknown plan names than are logged. */
    private final Set<String> unknownPlansOverflowed = ConcurrentHashMap.newKeySet();

    /** Policies without plans. */
    public PolicyRegistry(Map<String, Policy> policies) {
        this(policies, Map.of());
    }

    /**
     * @param policies the policies by name
     * @param plans per policy name, its plans by plan name (each a {@link Policy} of the same name)
     */
    public PolicyRegistry(Map<String, Policy> policies, Map<String, Map<String, Policy>> plans) {
        this.policies = Map.copyOf(policies);
        Map<String, Policy[]> alone = new HashMap<>();
        this.policies.forEach((name, p) -> alone.put(name, new Policy[] { p }));
        this.alone = Map.copyOf(alone);
        Map<String, Map<String, Policy>> copy = new TreeMap<>();
        plans.forEach((name, named) -> {
            if (!named.isEmpty()) {
                copy.put(name, Map.copyOf(named));
            }
        });
        this.plans = Map.copyOf(copy);
    }

    /** The policy of that name (its base plan). */
    public Policy get(String name) {
        Policy p = policies.get(name);
        if (p == null) {
            throw new IllegalArgumentException("Unknown rate-limit policy '" + name + "'; configured policies: "
                    + new TreeMap<>(policies).keySet() + ". Define it with " + PolicyValidator.property(name, "limit")
                    + " and " + PolicyValidator.property(name, "window"));
        }
        return p;
    }

    /**
     * The policy of that name (its base plan) as the one policy of a call: an array made once and shared by every call
     * of it alone, which nobody may write (the limiter and the backends only read the policies of a call).
     */
    public Policy[] alone(String name) {
        int slot = name.hashCode() & (RECENT - 1);
        Alone met = recent[slot];
        if (met != null && met.name == name) {
            return met.ps; // a name asked lately, the same string (a constant of the caller's): no map lookup
        }
        Policy[] ps = alone.get(name);
        if (ps == null) {
            get(name); // says which policies there are
        }
        recent[slot] = new Alone(name, ps);
        return ps;
    }

    /** A name asked of {@link #alone} (the caller's string, compared by identity) and its array. */
    private record Alone(String name, Policy[] ps) {
    }

    /** Slots of {@link #recent}. */
    private static final int RECENT = 16;
    /** The names asked of {@link #alone} lately (any thread: immutable records, published whole). */
    private final Alone[] recent = new Alone[RECENT];

    /**
     * The policy of that name on plan {@code plan}: the plan's values, or the base plan's when {@code plan} is null,
     * when the policy has no plans (it has only its base plan), or when it has plans but not this one (logged at WARN
     * once per policy and plan name).
     */
    public Policy get(String name, String plan) {
        Policy base = get(name);
        if (plan == null) {
            return base;
        }
        Map<String, Policy> named = plans.get(name);
        if (named == null) {
            return base;
        }
        Policy p = named.get(plan);
        if (p == null) {
            unknownPlan(name, plan, named);
            return base;
        }
        return p;
    }

    private void unknownPlan(String policy, String plan, Map<String, Policy> named) {
        Set<String> logged = unknownPlans.computeIfAbsent(policy, n -> ConcurrentHashMap.newKeySet());
        if (logged.contains(plan)) {
            return;
        }
        if (logged.size() >= MAX_UNKNOWN_PLANS_LOGGED) {
            if (unknownPlansOverflowed.add(policy)) {
                LOG.warnf("Rate-limit policy '%s' was asked for more than %d plans it does not have; further "
                        + "unknown plan names are decided on its base plan without a warning", policy,
                        MAX_UNKNOWN_PLANS_LOGGED);
            }
            return;
        }
        if (logged.add(plan)) {
            LOG.warnf("Rate-limit policy '%s' has no plan '%s' (its plans: %s): such requests are decided on the "
                    + "policy's own values. Define %s, or fix the plan name the application gives", policy, plan,
                    new TreeMap<>(named).keySet(), PolicyValidator.planProperty(policy, plan, "limit"));
        }
    }

    /** The plans of a policy by name; empty when it has none. */
    public Map<String, Policy> plans(String name) {
        return plans.getOrDefault(name, Map.of());
    }

    /** Whether the policy of that name has plans. */
    public boolean hasPlans(String name) {
        return plans.containsKey(name);
    }

    /** Whether a policy of that name exists. */
    public boolean contains(String name) {
        return policies.containsKey(name);
    }

    /** Every policy (their base plans). */
    public Collection<Policy> all() {
        return policies.values();
    }
}
