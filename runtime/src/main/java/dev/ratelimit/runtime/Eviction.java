package dev.ratelimit.runtime;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Keeps a concurrent map of expiring entries within a size: when it is full, expired entries are
 * dropped and, if that is not enough, the tenth of the entries that matter least (lowest score).
 * One thread trims at a time; the others go on meanwhile, so the map may exceed its size by what
 * they insert during a trim. A trim costs O(n log n), at most once per {@code max / 10} inserts.
 */
final class Eviction {

    private final int max;
    private final AtomicBoolean trimming = new AtomicBoolean();

    /** @param max the most entries to hold (at least 1) */
    Eviction(int max) {
        this.max = max;
    }

    /** Whether the map holds at least {@code max} entries. */
    boolean full(Map<?, ?> map) {
        return map.size() >= max;
    }

    /**
     * Drops the expired entries and, while the map is over nine tenths full, those of lowest score
     * (ties dropped together until enough are gone). Returns false when another thread is trimming.
     */
    <V> boolean trim(Map<?, V> map, Predicate<V> expired, ToDoubleFunction<V> score) {
        if (!trimming.compareAndSet(false, true)) {
            return false;
        }
        try {
            map.values().removeIf(expired);
            int excess = map.size() - (max - Math.max(1, max / 10));
            if (excess <= 0) {
                return true;
            }
            double[] scores = new double[map.size()];
            int n = 0;
            for (V v : map.values()) {
                if (n == scores.length) {
                    break; // inserted meanwhile
                }
                scores[n++] = score.applyAsDouble(v);
            }
            if (n == 0) {
                return true;
            }
            Arrays.sort(scores, 0, n);
            double threshold = scores[Math.min(n, excess) - 1];
            for (Iterator<V> it = map.values().iterator(); it.hasNext() && excess > 0;) {
                if (score.applyAsDouble(it.next()) <= threshold) {
                    it.remove();
                    excess--;
                }
            }
            return true;
        } finally {
            trimming.set(false);
        }
    }
}
