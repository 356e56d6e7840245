package dev.ratelimit.runtime.core;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.policy.Policy;

/**
 * The same (policy, key) more than once in one call, as a repeated {@code @RateLimit} whose keys resolve alike
 * produces (ip and principal for an anonymous caller): one charge of the summed costs, decided once, and each check
 * reports that decision. The backends decide distinct keys only. All plans of a policy share its key, so checks on
 * different plans of it merge too: one charge has one set of values, hence they are refused.
 */
final class MergedChecks {

    final Policy[] policies;
    final String[] keys;
    final long[] costs;
    /** For each original check, the index of its merged one. */
    private final int[] slot;

    private MergedChecks(Policy[] policies, String[] keys, long[] costs, int[] slot) {
        this.policies = policies;
        this.keys = keys;
        this.costs = costs;
        this.slot = slot;
    }

    /**
     * The checks merged by key, or null when every key is distinct (the common case, found without allocating).
     *
     * @throws IllegalArgumentException when checks of one key are on different plans of their policy
     */
    static MergedChecks of(Policy[] ps, String[] keys, long[] costs) {
        int n = keys.length;
        int[] slot = null;
        int m = 0;
        for (int i = 0; i < n; i++) {
            int same = -1;
            for (int j = 0; j < i; j++) {
                if (keys[i].equals(keys[j])) {
                    same = j;
                    break;
                }
            }
            if (same >= 0 && ps[same] != ps[i]) {
                throw new IllegalArgumentException("policy '" + ps[i].name() + "' is checked more than once for one key"
                        + " in one call, on different plans: those checks are one charge, decided on one plan's"
                        + " values; name the same plan in each, or decide them in separate calls");
            }
            if (same >= 0 && slot == null) {
                slot = new int[n];
                for (int k = 0; k < i; k++) {
                    slot[k] = k;
                }
                m = i;
            }
            if (slot != null) {
                slot[i] = same >= 0 ? slot[same] : m++;
            }
        }
        if (slot == null) {
            return null;
        }
        Policy[] mps = new Policy[m];
        String[] mkeys = new String[m];
        long[] mcosts = new long[m];
        for (int i = 0; i < n; i++) {
            mps[slot[i]] = ps[i];
            mkeys[slot[i]] = keys[i];
            mcosts[slot[i]] += costs[i];
        }
        return new MergedChecks(mps, mkeys, mcosts, slot);
    }

    /** The decision of the merged checks, reported for each original check. */
    RateLimitDecision expand(RateLimitDecision merged) {
        List<PolicyDecision> each = new ArrayList<>(slot.length);
        for (int s : slot) {
            each.add(merged.policies().get(s));
        }
        return new RateLimitDecision(merged.allowed(), each, merged.source(),
                merged.holdsSlots() ? merged::release : null);
    }
}
