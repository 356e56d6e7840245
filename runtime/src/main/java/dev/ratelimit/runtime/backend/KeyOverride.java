package dev.ratelimit.runtime.backend;

import dev.ratelimit.runtime.policy.Policy;

/**
 * The values one key of a policy with {@code overrides=true} has of its own, set at run time: each replaces the
 * policy's (or its plan's) value for that key, 0 where not set. The backends apply it in the decision itself: Redis
 * keeps it beside the key ({@link RedisKeys#OVERRIDE}) and the decide script reads it in the same call; the in-process
 * backend keeps those this instance knows.
 *
 * @param limit units per window; 0: the policy's
 * @param windowMicros the window in microseconds; 0: the policy's
 * @param burst the burst (bucket algorithms); 0: the policy's, or the overriding limit where the policy's burst is its
 *        limit
 * @param expiresAtMicros when it stops applying, in microseconds since the epoch; 0: never
 * @param plan the plan it was set from (its values stored as they were then), or null
 */
public record KeyOverride(long limit, long windowMicros, long burst, long expiresAtMicros, String plan) {

    /**
     * The form Redis stores: {@code "<limit> <window us> <burst> <expires at us> <plan>"}, an empty field for a value
     * not set (see {@code decide.lua}).
     */
    public String stored() {
        return field(limit) + ' ' + field(windowMicros) + ' ' + field(burst) + ' ' + field(expiresAtMicros) + ' '
                + (plan == null ? "" : plan);
    }

    /** The override a stored value describes, or null when it has another shape (the scripts ignore it then). */
    public static KeyOverride parse(String stored) {
        if (stored == null) {
            return null;
        }
        String[] f = stored.split(" ", 5);
        if (f.length < 4) {
            return null;
        }
        try {
            long[] v = new long[4];
            for (int i = 0; i < 4; i++) {
                if (!f[i].isEmpty() && !f[i].chars().allMatch(c -> c >= '0' && c <= '9')) {
                    return null;
                }
                v[i] = f[i].isEmpty() ? 0 : Long.parseLong(f[i]);
            }
            String plan = f.length == 5 && !f[4].isEmpty() ? f[4] : null;
            return new KeyOverride(v[0], v[1], v[2], v[3], plan);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Whether it no longer applies at {@code nowMicros}. */
    public boolean expired(long nowMicros) {
        return expiresAtMicros > 0 && expiresAtMicros <= nowMicros;
    }

    /**
     * The policy as it decides for the key: the values set here over its own; a burst not set follows an overriding
     * limit where the policy's burst is its limit (as {@code decide.lua} applies it).
     */
    public Policy applyTo(Policy p) {
        return p.withValues(limit > 0 ? limit : p.limit(), windowMicros > 0 ? windowMicros : p.windowMicros(),
                burst(p, limit, burst));
    }

    /**
     * The burst of {@code p} for a key whose override sets {@code limit} and {@code burst} (0: not set): the
     * override's, else the overriding limit where the policy's burst is its limit, else the policy's.
     */
    public static long burst(Policy p, long limit, long burst) {
        if (burst > 0) {
            return burst;
        }
        return limit > 0 && p.burst() == p.limit() ? limit : p.burst();
    }

    private static String field(long v) {
        return v > 0 ? Long.toString(v) : "";
    }
}
