package dev.ratelimit.runtime.backend.local;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Keeps a concurrent map of expiring entries within a size. Its users insert first and then call
 * {@link #trim}: once the map holds more than {@code max} entries, expired entries are dropped and
 * with them those that matter least (lowest score), about down to nine tenths of {@code max}: every
 * entry scoring below a cut estimated from a sample of the scores, then entries at the cut while
 * needed. One thread trims at a time; the others go on meanwhile, so the map may exceed {@code max}
 * by what they insert during a trim. A trim is one pass over the map (two when entries tied at the
 * cut must go too), at most once per about {@code max / 10} inserts.
 */
public final class Eviction {

    /** How many scores the cut is estimated from. */
    static final int SAMPLE = 1024;

    private final int max;
    private final int target;
    private final AtomicBoolean trimming = new AtomicBoolean();

    /** @param max the most entries to hold (at least 1) */
    public Eviction(int max) {
        this.max = max;
        this.target = max - max / 10;
    }

    /**
     * Trims the map if it holds more than {@code max} entries. An entry is removed only if it still
     * holds the value scored (another thread may have replaced it meanwhile). Returns at once when
     * another thread is trimming.
     */
    public <K, V> void trim(ConcurrentMap<K, V> map, Predicate<V> expired, ToDoubleFunction<V> score) {
        if (map.size() <= max || !trimming.compareAndSet(false, true)) {
            return;
        }
        try {
            int size = map.size();
            int excess = size - target;
            double cut = cut(map, expired, score, (double) excess / size);
            // one pass: expired entries and every entry scoring below the cut
            for (Iterator<Map.Entry<K, V>> it = map.entrySet().iterator(); it.hasNext();) {
                Map.Entry<K, V> e = it.next();
                V v = e.getValue();
                if ((expired.test(v) || score.applyAsDouble(v) < cut) && map.remove(e.getKey(), v)) {
                    excess--;
                }
            }
            // entries at the cut only if that was not enough: within the same pass, a live entry seen
            // before the expired ones would have gone while they alone made room
            for (Iterator<Map.Entry<K, V>> it = map.entrySet().iterator(); excess > 0 && it.hasNext();) {
                Map.Entry<K, V> e = it.next();
                V v = e.getValue();
                if (score.applyAsDouble(v) == cut && map.remove(e.getKey(), v)) {
                    excess--;
                }
            }
        } finally {
            trimming.set(false);
        }
    }

    /**
     * The score below which about {@code share} of the live entries fall, estimated from the first
     * {@link #SAMPLE} of them in the map's order (a hash order, unrelated to scores): a full sort
     * of every score would stall the calling thread, often an event loop, for tens of milliseconds.
     */
    private static <K, V> double cut(ConcurrentMap<K, V> map, Predicate<V> expired, ToDoubleFunction<V> score,
            double share) {
        double[] sample = new double[SAMPLE];
        int n = 0;
        for (Iterator<V> it = map.values().iterator(); it.hasNext() && n < SAMPLE;) {
            V v = it.next();
            if (!expired.test(v)) {
                sample[n++] = score.applyAsDouble(v);
            }
        }
        if (n == 0) {
            return Double.NEGATIVE_INFINITY; // nothing live seen: drop what has expired
        }
        Arrays.sort(sample, 0, n);
        return sample[Math.max(0, Math.min(n - 1, (int) Math.ceil(share * n) - 1))];
    }
}
