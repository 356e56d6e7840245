package dev.ratelimit.runtime.backend.redis;

import java.util.function.IntToLongFunction;

import dev.ratelimit.runtime.backend.redis.transport.ReplyValues;
import io.vertx.redis.client.Response;

/**
 * The reply of identical calls sent as one entry of a compact batch run (a burst on a hot key: one key, policy and
 * cost at one instant), read back as the replies each call would have got on its own: {@code 1, allowed, remaining,
 * retry-after ms, reset ms} after {@code all}, the layout of a single-policy decision. The entry's form, written by
 * {@code decide_same} in {@code batch.lua}: {@code m} (the first m calls were admitted), the first call's five
 * integers, {@code d} and d resets (those of calls 2 to m when they differ from the first's), and, when {@code 0 < m <
 * n}, the five integers of the calls denied after them. Admitted call {@code j} (from 0) has the first's remaining
 * less {@code j} times the cost.
 */
public final class RepeatedCalls {

    /** The integers of one single-policy call's reply. */
    public static final int WIDTH = 5;

    private RepeatedCalls() {
    }

    /**
     * The integers of a call's reply: those rebuilt from its entry's as they are, those of a reply from Redis read one
     * by one.
     */
    public static long[] values(Response reply) {
        if (reply instanceof ReplyValues v) {
            return v.values;
        }
        long[] values = new long[reply.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = reply.get(i).toLong();
        }
        return values;
    }

    /**
     * Fills {@code replies} (one array of {@link #WIDTH} per call, {@code n} of them) from the entry that starts at
     * element {@code at}, read through {@code element}; returns the number of elements the entry took.
     *
     * @throws IllegalStateException when the entry is not of this form
     */
    public static int read(IntToLongFunction element, int at, int n, long cost, long[][] replies) {
        long m = element.applyAsLong(at);
        long d = element.applyAsLong(at + 1 + WIDTH);
        if (m < 0 || m > n || (d != 0 && d != m - 1)) {
            throw new IllegalStateException("not the reply of " + n + " identical calls: " + m + " admitted, " + d
                    + " resets");
        }
        int first = at + 1;
        int resets = at + 2 + WIDTH;
        int denied = m == 0 ? first : resets + (int) d;
        long all = element.applyAsLong(first);
        long remaining = element.applyAsLong(first + 2);
        long reset = element.applyAsLong(first + 4);
        for (int j = 0; j < n; j++) {
            long[] r = new long[WIDTH];
            if (j < m) {
                r[0] = all;
                r[1] = 1;
                r[2] = remaining - j * cost;
                r[3] = j == 0 ? element.applyAsLong(first + 3) : 0;
                r[4] = j == 0 || d == 0 ? reset : element.applyAsLong(resets + j - 1);
            } else {
                for (int v = 0; v < WIDTH; v++) {
                    r[v] = element.applyAsLong(denied + v);
                }
            }
            replies[j] = r;
        }
        return 2 + WIDTH + (int) d + (m > 0 && m < n ? WIDTH : 0);
    }
}
