package dev.ratelimit.runtime.algorithm;

import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A small property-based search: a number of random cases drawn from one printed seed, and a failing case shrunk
 * greedily (the first simpler candidate that still fails replaces it, until none does) to a readable counterexample.
 * <p>
 * {@code -Dratelimit.pbt.tries=N} sets the number of cases (the build's default is 1,000), {@code -Dratelimit.pbt.seed=S}
 * replays a run.
 */
final class PropertySearch {

    /** At most this many candidates are tried while shrinking, so that a slow property still ends. */
    private static final int SHRINK_BUDGET = 5_000;

    private PropertySearch() {
    }

    static int tries() {
        String v = System.getProperty("ratelimit.pbt.tries", "");
        return v.isBlank() ? 1_000 : Integer.parseInt(v.trim());
    }

    static long seed() {
        String v = System.getProperty("ratelimit.pbt.seed", "");
        return v.isBlank() ? new Random().nextLong() : Long.parseLong(v.trim());
    }

    /**
     * Checks {@code property} on {@link #tries()} cases; on a failure, throws an {@link AssertionError} with the shrunk
     * case, its failure, the original case and the seed.
     *
     * @param generate a case from a random source
     * @param simpler simpler variants of a case, the most promising first
     * @param property throws when the case breaks it
     */
    static <T> void check(String name, Function<Random, T> generate, Function<T, List<T>> simpler,
            Consumer<T> property) {
        long seed = seed();
        int tries = tries();
        Random seeds = new Random(seed);
        for (int i = 1; i <= tries; i++) {
            T t = generate.apply(new Random(seeds.nextLong()));
            Throwable failure = failure(property, t);
            if (failure != null) {
                Shrunk<T> shrunk = shrink(t, failure, simpler, property);
                AssertionError e = new AssertionError(String.format(
                        "%s: case %d of %d failed (seed %d; replay with -Dratelimit.pbt.seed=%d).%n"
                                + "Shrunk in %d steps to:%s%n%s%nOriginal case:%s",
                        name, i, tries, seed, seed, shrunk.steps, shrunk.value, shrunk.failure.getMessage(), t),
                        shrunk.failure);
                throw e;
            }
        }
        System.out.printf("%s: %d cases passed (seed %d)%n", name, tries, seed);
    }

    private record Shrunk<T>(T value, Throwable failure, int steps) {
    }

    private static <T> Shrunk<T> shrink(T t, Throwable failure, Function<T, List<T>> simpler, Consumer<T> property) {
        T current = t;
        Throwable currentFailure = failure;
        int steps = 0;
        int budget = SHRINK_BUDGET;
        boolean progress = true;
        while (progress && budget > 0) {
            progress = false;
            for (T candidate : simpler.apply(current)) {
                if (--budget < 0) {
                    break;
                }
                Throwable f = failure(property, candidate);
                if (f != null) {
                    current = candidate;
                    currentFailure = f;
                    steps++;
                    progress = true;
                    break;
                }
            }
        }
        return new Shrunk<>(current, currentFailure, steps);
    }

    private static <T> Throwable failure(Consumer<T> property, T t) {
        try {
            property.accept(t);
            return null;
        } catch (AssertionError | RuntimeException e) {
            return e;
        }
    }
}
