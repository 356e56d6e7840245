package dev.ratelimit.runtime.algorithm;

/**
 * A bucket's theoretical arrival time (token bucket, leaky bucket, GCRA): {@code a + b / den} microseconds, {@code den}
 * being the limit of the policy that wrote it, as {@code bucket.lua} stores it.
 */
final class BucketState extends State {

    final long a;
    final long b;
    final long den;

    BucketState(long a, long b, long den, long expiresAt) {
        super(expiresAt);
        this.a = a;
        this.b = b;
        this.den = den;
    }

    /** The time in 1/limit microseconds, {@code {a, b}}, rounded up from another limit's (bucket_parse). */
    long[] time(long limit) {
        if (den == limit) {
            return new long[] { a, b };
        }
        long scaled = (long) Math.ceil((double) b / den * limit - 1e-6);
        if (scaled >= limit) {
            return new long[] { a + 1, 0 };
        }
        return new long[] { a, Math.max(0, scaled) };
    }

    @Override
    long unitsHeld(long now, long limit, long window) {
        long[] t = time(limit);
        double held = Math.ceil(((t[0] - now) * (double) limit + t[1]) / window - 1e-9);
        return held > 0 ? (long) held : 0;
    }
}
