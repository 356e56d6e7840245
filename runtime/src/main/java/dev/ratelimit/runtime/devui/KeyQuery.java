package dev.ratelimit.runtime.devui;

import java.util.TreeMap;
import java.util.TreeSet;

import dev.ratelimit.runtime.key.KeySource;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.policy.PolicyRegistry;

/** Checks what the Dev UI form sends for a key's lookup or reset, and says what to fix. */
final class KeyQuery {

    private KeyQuery() {
    }

    /**
     * What is wrong with this policy, key and plan, or null when they can be asked: a policy that is configured, a key
     * that is not blank, and a plan that is blank or one of the policy's plans.
     */
    static String problem(PolicyRegistry policies, String policy, String key, String plan) {
        String configured = String.join(", ", names(policies));
        if (policy == null || policy.isBlank()) {
            return "Choose a policy: one of " + configured + ".";
        }
        if (!policies.contains(policy)) {
            return "Unknown policy '" + policy + "': the configured policies are " + configured
                    + ". Choose one of them, or define quarkus.ratelimit.policies.\"" + policy + "\".limit and .window.";
        }
        if (key == null || key.isBlank()) {
            return "Enter a key: the identity policy '" + policy + "' counts a request under, such as "
                    + example(policies.get(policy).key()) + ", or the key your code passes to RateLimiter.";
        }
        String onPlan = plan(plan);
        if (onPlan != null) {
            if (!policies.hasPlans(policy)) {
                return "Policy '" + policy + "' has no plans: leave the plan empty.";
            }
            if (!policies.plans(policy).containsKey(onPlan)) {
                return "Policy '" + policy + "' has no plan '" + onPlan + "': its plans are "
                        + String.join(", ", new TreeMap<>(policies.plans(policy)).keySet())
                        + ". Choose one of them, or leave the plan empty for the policy's own values.";
            }
        }
        return null;
    }

    /**
     * A hint when {@code key} cannot be what a request over HTTP is counted under for a policy with key source
     * {@code source} (those identities carry their kind, {@code ip=...}, {@code hdr=...}); else null. Such a key is
     * still asked: code may pass it to {@code RateLimiter} itself.
     */
    static String note(String source, String key) {
        if (KeySource.parse(source) instanceof KeySource.Global || key.contains("=")
                || KeySource.GLOBAL_IDENTITY.equals(key)) {
            return null;
        }
        return "Requests over HTTP are counted under identities that carry their kind, such as " + example(source)
                + "; '" + key + "' is only what code passing it to RateLimiter counts.";
    }

    /** What an identity looks like for a key source. */
    static String example(String source) {
        return KeySource.parse(source).example();
    }

    /** The plan asked for: null when blank or absent (the policy's own values). */
    static String plan(String plan) {
        return plan == null || plan.isBlank() ? null : plan.trim();
    }

    private static TreeSet<String> names(PolicyRegistry policies) {
        TreeSet<String> names = new TreeSet<>();
        for (Policy p : policies.all()) {
            names.add(p.name());
        }
        return names;
    }
}
