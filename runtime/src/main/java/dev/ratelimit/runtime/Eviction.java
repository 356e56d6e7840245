package dev.ratelimit.runtime;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Keeps a concurrent map of expiring entries within a size. Its users insert first and then call
 * {@link #trim}: once the map holds more than {@code max} entries, expired entries are dropped and,
 * if that is not enough, those that matter least (lowest score) until nine tenths of {@code max}
 * are left: every entry scoring below the cut, then entries at the cut. One thread trims at a time;
 * the others go on meanwhile, so the map may exceed {@code max} by what they insert during a trim. A
 * trim costs O(n log n), at most once per {@code max / 10} inserts.
 */
final class Eviction {

    private final int max;
    private final int target;
    private final AtomicBoolean trimming = new AtomicBoolean();

    /** @param max the most entries to hold (at least 1) */
    Eviction(int max) {
        this.max = max;
        this.target = max - max / 10;
    }

    /**
     * Trims the map if it holds more than {@code max} entries. An entry is removed only if it still
     * holds the value scored (another thread may have replaced it meanwhile). Returns at once when
     * another thread is trimming.
     */
    <K, V> void trim(ConcurrentMap<K, V> map, Predicate<V> expired, ToDoubleFunction<V> score) {
        if (map.size() <= max || !trimming.compareAndSet(false, true)) {
            return;
        }
        try {
            map.values().removeIf(expired); // removes an entry only if its value is still the one tested
            int excess = map.size() - target;
            if (excess <= 0) {
                return;
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
                return;
            }
            Arrays.sort(scores, 0, n);
            double cut = scores[Math.min(n, excess) - 1];
            excess -= removeWhile(map, score, excess, s -> s < cut);
            removeWhile(map, score, excess, s -> s == cut);
        } finally {
            trimming.set(false);
        }
    }

    /** Removes up to {@code most} entries whose score passes {@code which}; returns how many. */
    private static <K, V> int removeWhile(ConcurrentMap<K, V> map, ToDoubleFunction<V> score, int most,
            java.util.function.DoublePredicate which) {
        int removed = 0;
        for (Iterator<Map.Entry<K, V>> it = map.entrySet().iterator(); it.hasNext() && removed < most;) {
            Map.Entry<K, V> e = it.next();
            if (which.test(score.applyAsDouble(e.getValue())) && map.remove(e.getKey(), e.getValue())) {
                removed++;
            }
        }
        return removed;
    }
}
