package dev.ratelimit.runtime.redis;

import java.util.Iterator;
import java.util.NoSuchElementException;

import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;

/** One call's elements of a run's flat reply, as the array its script alone would have replied. */
final class ReplySlice implements Response {
    final Response run;
    final int from;
    final int size;
    /** How many calls the run decided (what tracing reports as the batch size). */
    final int runSize;

    ReplySlice(Response run, int from, int size, int runSize) {
        this.run = run;
        this.from = from;
        this.size = size;
        this.runSize = runSize;
    }

    @Override
    public ResponseType type() {
        return ResponseType.MULTI;
    }

    @Override
    public int size() {
        return size;
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
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("index " + index + " of a reply of " + size);
        }
        return run.get(from + index);
    }

    @Override
    public Iterator<Response> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < size;
            }

            @Override
            public Response next() {
                if (next >= size) {
                    throw new NoSuchElementException();
                }
                return run.get(from + next++);
            }
        };
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < size; i++) {
            b.append(i == 0 ? "" : ", ").append(run.get(from + i));
        }
        return b.append(']').toString();
    }
}
