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
 * ms, reset ms}), so a Redis reply becomes one without reshaping and that order is known here alone. A call naming a
 * policy with overrides also says, per policy, the limit and window that applied ({@link #appliedLimit}): the scripts
 * reply them after the rest.
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
    /** Per policy, the limit and the window in microseconds that applied; null when no policy has overrides. */
    private final long[] applied;

    private BackendReply(long[] values, int runSize) {
        this(values, runSize, null, null);
    }

    private BackendReply(long[] values, int runSize, long[] chargedAtEach, long[] applied) {
        this.values = values;
        this.runSize = runSize;
        this.chargedAtEach = chargedAtEach;
        this.applied = applied;
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
     * The reply a script sent for a call of {@code policies} policies, one of which has overrides: the values in its
     * order, then per policy the limit and window that applied.
     *
     * @throws IllegalArgumentException when {@code values} does not have that shape
     */
    public static BackendReply ofScriptOrder(long[] values, int runSize, int policies) {
        int width = 1 + WIDTH * policies;
        if (values.length != width + 2 * policies) {
            throw new IllegalArgumentException("a decision reply of " + policies + " policies with overrides has "
                    + (width + 2 * policies) + " values, not " + values.length);
        }
        return new BackendReply(Arrays.copyOf(values, width), runSize, null,
                Arrays.copyOfRange(values, width, values.length));
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

    /**
     * The limit policy {@code p} (the call's {@code i}th) applied: a key's override's, else the policy's own.
     */
    public long appliedLimit(int i, Policy p) {
        // 0: not said (a part of a call across cluster slots naming no policy with overrides)
        return applied == null || applied[2 * i] == 0 ? p.limit() : applied[2 * i];
    }

    /** The window policy {@code p} (the call's {@code i}th) applied: a key's override's, else the policy's own. */
    public Duration appliedWindow(int i, Policy p) {
        long w = applied == null ? 0 : applied[2 * i + 1];
        return w == 0 || w == p.windowMicros() ? p.window() : Duration.ofNanos(w * 1000);
    }

    /** The values in the scripts' order (a copy), the limits and windows that applied last when replied. */
    public long[] toScriptOrder() {
        if (applied == null) {
            return values.clone();
        }
        long[] all = Arrays.copyOf(values, values.length + applied.length);
        System.arraycopy(applied, 0, all, values.length, applied.length);
        return all;
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
        // an immutable list, which RateLimitDecision keeps as is (List.copyOf of one returns it); a single policy's
        // (the common call) without the array in between
        List<PolicyDecision> each;
        if (ps.length == 1) {
            each = List.of(policyDecision(0, ps[0]));
        } else {
            PolicyDecision[] all = new PolicyDecision[ps.length];
            for (int i = 0; i < ps.length; i++) {
                all[i] = policyDecision(i, ps[i]);
            }
            each = List.of(all);
        }
        return new RateLimitDecision(allAdmitted(), each, source, release);
    }

    /** What policy {@code p}, the call's {@code i}th, decided. */
    private PolicyDecision policyDecision(int i, Policy p) {
        long retry = retryMillis(i);
        Duration window = appliedWindow(i, p);
        return new PolicyDecision(p.name(), appliedLimit(i, p), window, admitted(i), remaining(i),
                retry == NEVER ? window : millis(retry), millis(resetMillis(i)), p.shadow());
    }

    /** The durations of 0 to 1,023 ms, made once: a decision's waits are mostly short, and a Duration is immutable. */
    private static final Duration[] SHORT = new Duration[1024];

    static {
        for (int i = 0; i < SHORT.length; i++) {
            SHORT[i] = Duration.ofMillis(i);
        }
    }

    /** {@code Duration.ofMillis(ms)}, without a new object for a short one. */
    static Duration millis(long ms) {
        return ms >= 0 && ms < SHORT.length ? SHORT[(int) ms] : Duration.ofMillis(ms);
    }

    /** A reply built policy by policy. */
    public static Builder builder(int policies) {
        return new Builder(policies);
    }

    /** A builder starting from this reply's values. */
    public Builder toBuilder() {
        Builder b = new Builder(values.clone());
        b.applied = applied == null ? null : applied.clone();
        return b;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BackendReply r && Arrays.equals(values, r.values) && Arrays.equals(applied, r.applied);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values) * 31 + Arrays.hashCode(applied);
    }

    @Override
    public String toString() {
        return Arrays.toString(toScriptOrder());
    }

    /** Builds a reply; the call counts as admitted until {@link #denied()}. */
    public static final class Builder {

        private final long[] values;
        private long[] chargedAtEach;
        private long[] applied;

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
            if (reply.applied != null) {
                applied(i, reply.applied[2 * from], reply.applied[2 * from + 1]);
            }
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

        /**
         * Policy {@code i} applied this limit and window (in microseconds): a call naming a policy with overrides
         * says it of each of its policies.
         */
        public Builder applied(int i, long limit, long windowMicros) {
            if (applied == null) {
                applied = new long[2 * ((values.length - 1) / WIDTH)];
            }
            applied[2 * i] = limit;
            applied[2 * i + 1] = windowMicros;
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
            return new BackendReply(values.clone(), 0, chargedAtEach == null ? null : chargedAtEach.clone(),
                    applied == null ? null : applied.clone());
        }
    }
}
