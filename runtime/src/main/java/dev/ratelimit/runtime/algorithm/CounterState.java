package dev.ratelimit.runtime.algorithm;

/**
 * A sliding window counter's counts: {@code current} units admitted in the window of that {@code index} (now / window),
 * {@code previous} in the one before.
 */
final class CounterState extends State {

    final long index;
    final long previous;
    final long current;

    CounterState(long index, long previous, long current, long expiresAt) {
        super(expiresAt);
        this.index = index;
        this.previous = previous;
        this.current = current;
    }

    @Override
    long unitsHeld(long now, long limit, long window) {
        return previous + current;
    }
}
