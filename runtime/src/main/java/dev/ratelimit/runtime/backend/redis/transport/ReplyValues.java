package dev.ratelimit.runtime.backend.redis.transport;

import io.vertx.redis.client.Response;
import io.vertx.redis.client.impl.types.NumberType;

/** A call's reply rebuilt from its run's (see the burst format, {@code RepeatedCalls}): the integers its script alone would have replied. */
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
        return NumberType.create(values[index]);
    }
}
