package dev.ratelimit.benchmark;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A key set of the limiter suite: its name in the report, how many keys it has, and how a caller picks its next
 * key: the one hot key, one of {@code n} uniformly, or one of {@code n} by a Zipf law (key {@code i} with a weight of
 * {@code (i + 1)^-s}: key 0 the hottest, a long cold tail), drawn by a binary search of the cumulative weights.
 */
final class KeySet {

    private final String name;
    private final int size;
    /** Cumulative probabilities of the keys in order, the last 1; null: uniform. */
    private final double[] cdf;

    private KeySet(String name, int size, double[] cdf) {
        this.name = name;
        this.size = size;
        this.cdf = cdf;
    }

    /** {@code hot}, {@code spread} or {@code zipf}, as {@code bench.keysets} names them. */
    static KeySet of(String kind, Settings settings) {
        return switch (kind) {
            case "hot" -> new KeySet("hot key", 1, null);
            case "spread" -> new KeySet(String.format(Locale.ROOT, "%,d keys", settings.keys()), settings.keys(), null);
            case "zipf" -> zipf(settings.zipfKeys(), settings.zipfExponent());
            default -> throw new IllegalArgumentException(kind);
        };
    }

    static KeySet zipf(int n, double s) {
        double[] cdf = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += Math.pow(i + 1, -s);
            cdf[i] = sum;
        }
        for (int i = 0; i < n; i++) {
            cdf[i] /= sum;
        }
        cdf[n - 1] = 1.0;
        return new KeySet(String.format(Locale.ROOT, "Zipf(%s), %,d keys", trim(s), n), n, cdf);
    }

    String name() {
        return name;
    }

    int size() {
        return size;
    }

    /** The share of the calls that go to the hottest key. */
    double hottestShare() {
        return cdf == null ? 1.0 / size : cdf[0];
    }

    /** The next key's index. */
    int next(ThreadLocalRandom random) {
        if (size == 1) {
            return 0;
        }
        if (cdf == null) {
            return random.nextInt(size);
        }
        int i = Arrays.binarySearch(cdf, random.nextDouble());
        return i >= 0 ? i : Math.min(-i - 1, size - 1);
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
