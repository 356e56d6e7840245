package dev.ratelimit.runtime.backend;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.runtime.policy.Policy;

/**
 * A backend's answer to one call: whether the call was admitted, then for each of its policies whether that policy
 * admitted it, the units left, the wait before a retry can be admitted and the time until the policy is full again.
 * The scripts, the in-process backend and a cluster's merged reply all produce it; the deny cache reads its waits and
 * the limiter turns it into a {@link RateLimitDecision}.
 * <p>
 * It holds the values in the order the scripts reply them ({@code all, then per policy: admitted, remaining, retry
 * ms, reset ms}), so a Redis reply becomes one without reshaping and that order is known here alone.
 */
public final class BackendReply {

    /** {@link #retryMillis} of a policy whose cost can never be admitted. */
    public static final long NEVER = -1;

    private static final int WIDTH = 4;

    private final long[] values;
    /** How many calls the script run that produced this reply decided; 0 when not known. */
    private final int runSize;
    /** Per policy, when a reservation merged from several script calls was charged; null otherwise. */
    private final long[] chargedAtEach;

    private BackendReply(long[] values, int runSize) {
        this(values, runSize, null);
    }

    private BackendReply(long[] values, int runSize, long[] chargedAtEach) {
        this.values = values;
        this.runSize = runSize;
        this.chargedAtEach = chargedAtEach;
    }

    /**
     * The reply a script sent, in its order.
     *
     * @throws IllegalArgumentException when {@code values} does not have that shape
     */
    public static BackendReply ofScriptOrder(long[] values) {
        return ofScriptOrder(values, 0);
    }

    /**
     * The reply a script sent, in its order, from a script run that decided {@code runSize} calls (1: the call alone).
     *
     * @throws IllegalArgumentException when {@code values} does not have that shape
     */
    public static BackendReply ofScriptOrder(long[] values, int runSize) {
        if (values.length < 1 + WIDTH || (values.length - 1) % WIDTH != 0) {
            throw new IllegalArgumentException("a decision reply has 1 + 4 values per policy, not " + values.length);
        }
        return new BackendReply(values, runSize);
    }

    /**
     * How many calls were decided by the one script run that produced this reply: 1 for a call sent alone, more for
     * a call decided in a batch; 0 when not known (the in-process backend, a reply merged from several script calls).
     * Not part of what the reply says, so {@link #equals} ignores it.
     */
    public int runSize() {
        return runSize;
    }

    /** How many policies the reply is about. */
    public int size() {
        return (values.length - 1) / WIDTH;
    }

    /**
     * Whether the call was admitted: every enforced policy admitted it. (A reservation's reply holds the time of its
     * charge there instead of 1, see {@link #chargedAt}.)
     */
    public boolean allAdmitted() {
        return values[0] != 0;
    }

    /**
     * When a reservation this reply admitted was charged, in microseconds of the backend's clock (what a settlement
     * names it by); -1 for a reply that is not an admitted reservation's.
     */
    public long chargedAt() {
        return values[0] > 1 ? values[0] : -1;
    }

    /** When policy {@code i} of an admitted reservation was charged (see {@link #chargedAt()}); -1 when not known. */
    public long chargedAt(int i) {
        if (chargedAtEach != null) {
            return chargedAtEach[i];
        }
        return chargedAt();
    }

    /** Whether policy {@code i} admitted the call (a shadow policy may deny an admitted call). */
    public boolean admitted(int i) {
        return values[1 + WIDTH * i] == 1;
    }

    /** Units left to policy {@code i} after the call, never negative. */
    public long remaining(int i) {
        return Math.max(0, values[2 + WIDTH * i]);
    }

    /** Milliseconds until policy {@code i} could admit the call's cost, 0 when it admitted it, or {@link #NEVER}. */
    public long retryMillis(int i) {
        return values[3 + WIDTH * i];
    }

    /** Milliseconds until policy {@code i} is full again, never negative. */
    public long resetMillis(int i) {
        return Math.max(0, values[4 + WIDTH * i]);
    }

    /** The values in the scripts' order (a copy). */
    public long[] toScriptOrder() {
        return values.clone();
    }

    /** The decision this reply describes for these policies (in the call's order), from this source. */
    public RateLimitDecision decision(Policy[] ps, Source source) {
        return decision(ps, source, null);
    }

    /**
     * The decision this reply describes, holding the slots its concurrency policies took: {@code release} frees them
     * (null: none were taken).
     */
    public RateLimitDecision decision(Policy[] ps, Source source, Runnable release) {
        // an immutable list, which RateLimitDecision keeps as is (List.copyOf of one returns it)
        PolicyDecision[] each = new PolicyDecision[ps.length];
        for (int i = 0; i < ps.length; i++) {
            Policy p = ps[i];
            long retry = retryMillis(i);
            each[i] = new PolicyDecision(p.name(), p.limit(), p.window(), admitted(i), remaining(i),
                    retry == NEVER ? p.window() : Duration.ofMillis(retry), Duration.ofMillis(resetMillis(i)),
                    p.shadow());
        }
        return new RateLimitDecision(allAdmitted(), each.length == 1 ? List.of(each[0]) : List.of(each), source,
                release);
    }

    /** A reply built policy by policy. */
    public static Builder builder(int policies) {
        return new Builder(policies);
    }

    /** A builder starting from this reply's values. */
    public Builder toBuilder() {
        return new Builder(values.clone());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BackendReply r && Arrays.equals(values, r.values);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        return Arrays.toString(values);
    }

    /** Builds a reply; the call counts as admitted until {@link #denied()}. */
    public static final class Builder {

        private final long[] values;
        private long[] chargedAtEach;

        private Builder(int policies) {
            this(new long[1 + WIDTH * policies]);
            values[0] = 1;
        }

        private Builder(long[] values) {
            this.values = values;
        }

        /** Sets what policy {@code i} answered. */
        public Builder policy(int i, boolean admitted, long remaining, long retryMillis, long resetMillis) {
            int b = 1 + WIDTH * i;
            values[b] = admitted ? 1 : 0;
            values[b + 1] = remaining;
            values[b + 2] = retryMillis;
            values[b + 3] = resetMillis;
            return this;
        }

        /**
         * Sets policy {@code i} to what policy {@code from} of {@code reply} answered, and when it was charged if
         * {@code reply} is an admitted reservation's.
         */
        public Builder policy(int i, BackendReply reply, int from) {
            System.arraycopy(reply.values, 1 + WIDTH * from, values, 1 + WIDTH * i, WIDTH);
            long at = reply.chargedAt(from);
            if (at > 0) {
                if (chargedAtEach == null) {
                    chargedAtEach = new long[(values.length - 1) / WIDTH];
                    Arrays.fill(chargedAtEach, -1);
                }
                chargedAtEach[i] = at;
            }
            return this;
        }

        /** The call is not admitted. */
        public Builder denied() {
            values[0] = 0;
            return this;
        }

        /** The call is an admitted reservation charged at {@code micros} (see {@link BackendReply#chargedAt}). */
        public Builder chargedAt(long micros) {
            if (values[0] != 0) {
                values[0] = micros;
            }
            return this;
        }

        /** Whether the call is still admitted. */
        public boolean admitted() {
            return values[0] != 0;
        }

        public BackendReply build() {
            return new BackendReply(values.clone(), 0, chargedAtEach == null ? null : chargedAtEach.clone());
        }
    }
}
