package dev.ratelimit.runtime.algorithm;

/** A fixed window's count: {@code count} units admitted in the window of that {@code index} (now / window). */
final class WindowState extends State {

    final long index;
    final long count;

    WindowState(long index, long count, long expiresAt) {
        super(expiresAt);
        this.index = index;
        this.count = count;
    }

    @Override
    long unitsHeld(long now, long limit, long window) {
        return count;
    }
}
