package dev.ratelimit.runtime.core;

import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.policy.Policy;

/**
 * The Redis keys of the calls made lately, so that a key asked again (a hot client, an API key, an IPv6 address whose
 * identity is hashed) is not built again: {@link RedisKeys#key(String, Policy, String)} concatenates, checks every
 * character, and hashes an identity it cannot use as is (SHA-256). A table of {@value #SIZE} slots, each holding the
 * last key built for the pairs of policy and identity that fall on it; a pair found in its slot costs the identity's
 * hash (kept by the {@code String}) and one comparison of it, a pair not found costs one small object more than
 * building its key did. The key is handed out in an array of its own, shared by every call of that pair, which nobody
 * writes (the limiter and the backends only read the keys of a call).
 * <p>
 * Written and read by any thread without a lock: a slot holds an immutable entry, published by its final fields, and a
 * thread that misses another's entry builds the same key again.
 */
final class BuiltKeys {

    /** Slots: enough for the hot keys of a busy instance, at most a few hundred kilobytes however many keys pass. */
    static final int SIZE = 1024;

    private final String prefix;
    private final Entry[] slots = new Entry[SIZE];

    BuiltKeys(String prefix) {
        this.prefix = prefix;
    }

    /**
     * @param name the policy's name, which names its key; {@code inFlight}: a concurrency policy's key (see
     *        {@link RedisKeys#key(String, Policy, String)})
     */
    private record Entry(String name, boolean inFlight, String identity, String[] alone) {
    }

    /** The key of {@code identity} on {@code p}: the one {@link RedisKeys#key(String, Policy, String)} builds. */
    String key(Policy p, String identity) {
        return alone(p, identity)[0];
    }

    /** That key alone in an array, shared: nobody may write it. */
    String[] alone(Policy p, String identity) {
        String name = p.name();
        boolean inFlight = p.algorithm().holdsLeases();
        int slot = (identity.hashCode() * 31 + name.hashCode()) & (SIZE - 1);
        Entry e = slots[slot];
        if (e != null && e.inFlight == inFlight && e.identity.equals(identity) && e.name.equals(name)) {
            return e.alone;
        }
        String[] alone = { RedisKeys.key(prefix, p, identity) };
        slots[slot] = new Entry(name, inFlight, identity, alone);
        return alone;
    }
}
