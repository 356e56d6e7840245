package dev.ratelimit.runtime.redis;

import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;
import io.vertx.redis.client.impl.types.NumberType;

/** A call's reply rebuilt from its run's (see {@link RepeatedCalls}): the integers its script alone would have replied. */
final class ReplyValues implements Response {
    final long[] values;
    /** How many calls the run decided (what tracing reports as the batch size). */
    final int runSize;

    ReplyValues(long[] values, int runSize) {
        this.values = values;
        this.runSize = runSize;
    }

    @Override
    public ResponseType type() {
        return ResponseType.MULTI;
    }

    @Override
    public int size() {
        return values.length;
    }

    @Override
    public boolean isArray() {
        return true;
    }

    @Override
    public boolean isMap() {
        return false;
    }

    @Override
    public Response get(int index) {
        return NumberType.create(values[index]);
    }

    @Override
    public Iterator<Response> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < values.length;
            }

            @Override
            public Response next() {
                if (next >= values.length) {
                    throw new NoSuchElementException();
                }
                return get(next++);
            }
        };
    }

    @Override
    public String toString() {
        return Arrays.toString(values);
    }
}
