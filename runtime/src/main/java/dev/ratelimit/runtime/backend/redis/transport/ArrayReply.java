package dev.ratelimit.runtime.backend.redis.transport;

import java.util.Iterator;
import java.util.NoSuchElementException;

import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;

/**
 * One call's reply out of its run's, as the array its script alone would have replied: the elements come from
 * {@link #get}, over {@link #size}.
 */
public abstract class ArrayReply implements Response {
    /** How many calls the run decided (what tracing reports as the batch size). */
    public final int runSize;

    ArrayReply(int runSize) {
        this.runSize = runSize;
    }

    @Override
    public ResponseType type() {
        return ResponseType.MULTI;
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
    public Iterator<Response> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < size();
            }

            @Override
            public Response next() {
                if (next >= size()) {
                    throw new NoSuchElementException();
                }
                return get(next++);
            }
        };
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < size(); i++) {
            b.append(i == 0 ? "" : ", ").append(get(i));
        }
        return b.append(']').toString();
    }
}
