package dev.ratelimit.runtime.backend.redis.transport;

import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;

/**
 * A call's reply rebuilt from its run's (see the burst format, {@code RepeatedCalls}): the integers its script alone
 * would have replied.
 */
public final class ReplyValues extends ArrayReply {
    public final long[] values;

    ReplyValues(long[] values, int runSize) {
        super(runSize);
        this.values = values;
    }

    @Override
    public int size() {
        return values.length;
    }

    @Override
    public Response get(int index) {
        return new Integer(values[index]);
    }

    /** One integer of such a reply, as Redis would have sent it (a RESP integer). */
    private record Integer(long value) implements Response {
        @Override
        public ResponseType type() {
            return ResponseType.NUMBER;
        }

        @Override
        public Number toNumber() {
            return value;
        }

        @Override
        public Long toLong() {
            return value;
        }

        @Override
        public java.lang.Integer toInteger() {
            return (int) value;
        }

        @Override
        public String toString() {
            return Long.toString(value);
        }
    }
}
