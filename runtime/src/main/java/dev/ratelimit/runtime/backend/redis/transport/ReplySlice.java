package dev.ratelimit.runtime.backend.redis.transport;

import io.vertx.redis.client.Response;

/** One call's elements of a run's flat reply, as the array its script alone would have replied. */
final class ReplySlice extends ArrayReply {
    final Response run;
    final int from;
    final int size;

    ReplySlice(Response run, int from, int size, int runSize) {
        super(runSize);
        this.run = run;
        this.from = from;
        this.size = size;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Response get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("index " + index + " of a reply of " + size);
        }
        return run.get(from + index);
    }
}
