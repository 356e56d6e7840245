package dev.ratelimit.runtime.backend.local;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The locks of the in-process backend's keys, striped: a key's state is read and written under its stripe's lock,
 * and a call over several keys takes their stripes in one fixed order, so two calls can never lock in opposite
 * orders.
 */
final class KeyLocks {

    private static final int STRIPES = 64;

    private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

    KeyLocks() {
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new ReentrantLock();
        }
    }

    /** Locks the stripes of {@code keys}; returns them, for {@link #unlock(int[])}. */
    int[] lock(String[] keys) {
        int[] s = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            s[i] = stripe(keys[i]);
        }
        // a fixed order (and no duplicates) so two requests can never lock in opposite orders
        Arrays.sort(s);
        int n = 0;
        for (int i = 0; i < s.length; i++) {
            if (n == 0 || s[n - 1] != s[i]) {
                s[n++] = s[i];
            }
        }
        int[] stripes = Arrays.copyOf(s, n);
        for (int stripe : stripes) {
            locks[stripe].lock();
        }
        return stripes;
    }

    /** Unlocks what {@link #lock(String[])} locked. */
    void unlock(int[] stripes) {
        for (int i = stripes.length - 1; i >= 0; i--) {
            locks[stripes[i]].unlock();
        }
    }

    /** The lock of {@code key}'s stripe. */
    ReentrantLock of(String key) {
        return locks[stripe(key)];
    }

    private static int stripe(String key) {
        return (key.hashCode() & 0x7fffffff) % STRIPES;
    }
}
