package dev.ratelimit.runtime.algorithm;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The leases a {@code concurrency} key holds in process, as {@code concurrency.lua} keeps them in a sorted set: each
 * lease's units and the microsecond it expires at, ordered by expiry; and the tombstones of leases released before
 * they were taken, which a charge naming them is refused by. Guarded by its key's lock.
 */
final class LeaseSet {

    private record Held(long expiresAt, String id, long units) implements Comparable<Held> {
        @Override
        public int compareTo(Held o) {
            int c = Long.compare(expiresAt, o.expiresAt);
            return c != 0 ? c : id.compareTo(o.id);
        }
    }

    private final TreeSet<Held> byExpiry = new TreeSet<>();
    private final Map<String, Held> byId = new HashMap<>();
    /** Leases released while not held, by id: the microsecond each tombstone expires at. */
    private Map<String, Long> tombstones;
    private long units;

    /** Forgets the leases that expired by {@code now} (expiry at or before it). */
    void expire(long now) {
        while (!byExpiry.isEmpty() && byExpiry.first().expiresAt <= now) {
            Held h = byExpiry.pollFirst();
            byId.remove(h.id);
            units -= h.units;
        }
        if (tombstones != null) {
            tombstones.values().removeIf(t -> t <= now);
            if (tombstones.isEmpty()) {
                tombstones = null;
            }
        }
    }

    /** Whether lease {@code id} was released before it was taken (and its tombstone has not expired). */
    boolean released(String id) {
        return tombstones != null && tombstones.containsKey(id);
    }

    /** Units held by the leases. */
    long units() {
        return units;
    }

    /** When the soonest lease expires; only when some are held. */
    long soonest() {
        return byExpiry.first().expiresAt;
    }

    /** Takes {@code units} for lease {@code id} until {@code expiresAt} (a lease taken again replaces its units). */
    void take(String id, long expiresAt, long units) {
        release(id);
        Held h = new Held(expiresAt, id, units);
        byExpiry.add(h);
        byId.put(id, h);
        this.units += units;
    }

    /** Frees lease {@code id}; nothing when it is not held. */
    void release(String id) {
        Held h = byId.remove(id);
        if (h != null) {
            byExpiry.remove(h);
            units -= h.units;
        }
    }

    /**
     * Frees lease {@code id}, or when it is not held, keeps a tombstone of it until {@code tombstoneExpiresAt} so that
     * a charge of it arriving later takes nothing (as {@code release.lua} does).
     */
    void release(String id, long tombstoneExpiresAt) {
        if (byId.containsKey(id)) {
            release(id);
            return;
        }
        if (tombstones == null) {
            tombstones = new HashMap<>();
        }
        tombstones.put(id, tombstoneExpiresAt);
    }

    /** Whether neither a lease nor a tombstone is left. */
    boolean isEmpty() {
        return byId.isEmpty() && tombstones == null;
    }
}
