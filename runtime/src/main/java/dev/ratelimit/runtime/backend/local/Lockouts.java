package dev.ratelimit.runtime.backend.local;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import dev.ratelimit.runtime.algorithm.Outcome;
import dev.ratelimit.runtime.policy.Policy;

/**
 * The lock-outs of the in-process backend (a policy's {@code block-for}): per key, the microsecond its lock-out ends
 * at, as {@code decide.lua} keeps it in {@code <key>:locked}. Read and written under the key's lock. Bounded as the
 * states are: at most {@code maxKeys} keys; when a new lock-out would take it over that, the ended ones are dropped
 * and, if that is not enough, those ending soonest until about nine tenths are left.
 */
final class Lockouts {

    private final ConcurrentMap<String, Long> ends = new ConcurrentHashMap<>();
    private final int maxKeys;

    Lockouts(int maxKeys) {
        this.maxKeys = maxKeys;
    }

    /** The microseconds left of the lock-out of {@code key} at {@code now}, or 0 when it is not locked out. */
    long left(String key, long now) {
        Long end = ends.get(key);
        if (end == null) {
            return 0;
        }
        if (end <= now) {
            ends.remove(key, end);
            return 0;
        }
        return end - now;
    }

    /**
     * The outcome of a request on {@code key} while it is locked out at {@code now}: denied whatever its algorithm
     * says, nothing left, the time left as its wait (decide.lua's judge); null when it is not locked out.
     */
    Outcome deniedWhileLocked(String key, long now) {
        long locked = left(key, now);
        return locked > 0 ? new Outcome(false, 0, locked, locked, locked, null) : null;
    }

    /**
     * A denial by policy {@code p}, which has a lock-out: it locks the key out ({@code locks}: unless a dry run) and
     * waits at least the lock-out.
     */
    Outcome lockedOut(Outcome o, Policy p, String key, long now, boolean locks) {
        long block = p.blockForMicros();
        if (locks) {
            lock(key, now + block, now);
        }
        return new Outcome(false, o.avail(), Math.max(o.retry(), block), o.reset(), Math.max(o.resetNow(), block),
                o.next());
    }

    /** Locks {@code key} out until the microsecond {@code end}. */
    void lock(String key, long end, long now) {
        if (ends.size() >= maxKeys && !ends.containsKey(key)) {
            trim(now);
        }
        ends.put(key, end);
    }

    /** Lifts the lock-out of {@code key}, if any. */
    void forget(String key) {
        ends.remove(key);
    }

    /** Drops the lock-outs ended at {@code now}. */
    void sweep(long now) {
        ends.values().removeIf(end -> end <= now);
    }

    /** How many keys are locked out (ended lock-outs not yet swept included). */
    int size() {
        return ends.size();
    }

    private void trim(long now) {
        sweep(now);
        int excess = ends.size() - maxKeys * 9 / 10;
        if (excess <= 0) {
            return;
        }
        long[] sorted = ends.values().stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(sorted);
        long cut = sorted[Math.min(excess, sorted.length) - 1];
        ends.values().removeIf(end -> end <= cut);
    }
}
