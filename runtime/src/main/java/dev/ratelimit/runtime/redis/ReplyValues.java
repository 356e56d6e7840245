package dev.ratelimit.runtime.redis;

import io.vertx.redis.client.Response;
import io.vertx.redis.client.impl.types.NumberType;

/** A call's reply rebuilt from its run's (see {@link RepeatedCalls}): the integers its script alone would have replied. */
final class ReplyValues extends ArrayReply {
    final long[] values;

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
