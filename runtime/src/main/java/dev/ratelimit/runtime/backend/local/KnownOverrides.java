package dev.ratelimit.runtime.backend.local;

import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import dev.ratelimit.runtime.backend.KeyOverride;
import dev.ratelimit.runtime.policy.Policy;

/**
 * The keys' overrides the in-process backend knows (a policy's {@code overrides}): with {@code backend=local}, all of
 * them; as the {@code local} failure mode, those set, read or cleared through this instance. Bounded as the states
 * are: at most {@code maxKeys} keys; when a new one would take it over that, the expired ones are dropped and, if
 * that is not enough, any until about nine tenths are left (forgetting one only makes its key decide on the policy's
 * own values).
 */
final class KnownOverrides {

    private final ConcurrentMap<String, KeyOverride> byKey = new ConcurrentHashMap<>();
    private final int maxKeys;

    KnownOverrides(int maxKeys) {
        this.maxKeys = maxKeys;
    }

    /** The override of {@code key} that applies at {@code now}, or null. */
    KeyOverride get(String key, long now) {
        KeyOverride o = byKey.get(key);
        if (o != null && o.expired(now)) {
            byKey.remove(key, o);
            return null;
        }
        return o;
    }

    /** Sets the override of {@code key} (null: removes it); returns it. */
    KeyOverride put(String key, KeyOverride o, long now) {
        if (o == null) {
            byKey.remove(key);
            return null;
        }
        if (byKey.size() >= maxKeys && !byKey.containsKey(key)) {
            byKey.values().removeIf(v -> v.expired(now));
            Iterator<String> it = byKey.keySet().iterator();
            while (byKey.size() > maxKeys * 9 / 10 && it.hasNext()) {
                it.next();
                it.remove();
            }
        }
        byKey.put(key, o);
        return o;
    }

    /**
     * {@code policies} as they decide for {@code keys} at {@code now}: each with overrides, its key's override applied
     * ({@code policies} itself when none applies).
     */
    Policy[] applied(Policy[] policies, String[] keys, long now) {
        Policy[] out = policies;
        if (byKey.isEmpty()) {
            return out;
        }
        for (int i = 0; i < policies.length; i++) {
            if (policies[i].overrides()) {
                KeyOverride o = get(keys[i], now);
                if (o != null) {
                    if (out == policies) {
                        out = policies.clone();
                    }
                    out[i] = o.applyTo(policies[i]);
                }
            }
        }
        return out;
    }
}
