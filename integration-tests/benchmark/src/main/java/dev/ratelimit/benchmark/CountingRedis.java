package dev.ratelimit.benchmark;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.impl.RequestImpl;

/**
 * A Redis client that counts, per connection it hands out, the calls sent on it: a run of a batch script
 * counts as many calls as it has keys (one per call in this benchmark, one per burst of identical calls
 * sent once as one entry, as on a hot key). Redis 7.0 keeps no per-connection
 * command counter ({@code CLIENT LIST} has {@code tot-cmds} from 7.4 on), so the counting is done here,
 * to see whether an executor's callers really spread over its connections before any claim about how
 * many connections it should have.
 */
final class CountingRedis implements Redis {

    private final Redis delegate;
    private final List<LongAdder> calls = new CopyOnWriteArrayList<>();

    CountingRedis(Redis delegate) {
        this.delegate = delegate;
    }

    /** Calls sent so far on each connection handed out, in the order they were connected. */
    long[] callsPerConnection() {
        long[] out = new long[calls.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = calls.get(i).sum();
        }
        return out;
    }

    @Override
    public Future<RedisConnection> connect() {
        return delegate.connect().map(c -> {
            LongAdder counter = new LongAdder();
            calls.add(counter);
            return new Counted(c, counter);
        });
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public Future<Response> send(Request command) {
        return delegate.send(command);
    }

    @Override
    public Future<List<Response>> batch(List<Request> commands) {
        return delegate.batch(commands);
    }

    private static int calls(Request request) {
        if (request instanceof RequestImpl r) {
            int keys = r.keys().size();
            return Math.max(keys, 1);
        }
        return 1;
    }

    /** A connection that counts what is sent on it. */
    private static final class Counted implements RedisConnection {
        private final RedisConnection c;
        private final LongAdder counter;

        Counted(RedisConnection c, LongAdder counter) {
            this.c = c;
            this.counter = counter;
        }

        @Override
        public Future<Response> send(Request command) {
            counter.add(calls(command));
            return c.send(command);
        }

        @Override
        public Future<List<Response>> batch(List<Request> commands) {
            for (Request r : commands) {
                counter.add(calls(r));
            }
            return c.batch(commands);
        }

        @Override
        public RedisConnection exceptionHandler(Handler<Throwable> handler) {
            c.exceptionHandler(handler);
            return this;
        }

        @Override
        public RedisConnection handler(Handler<Response> handler) {
            c.handler(handler);
            return this;
        }

        @Override
        public RedisConnection pause() {
            c.pause();
            return this;
        }

        @Override
        public RedisConnection resume() {
            c.resume();
            return this;
        }

        @Override
        public RedisConnection fetch(long amount) {
            c.fetch(amount);
            return this;
        }

        @Override
        public RedisConnection endHandler(Handler<Void> handler) {
            c.endHandler(handler);
            return this;
        }

        @Override
        public Future<Void> close() {
            return c.close();
        }

        @Override
        public boolean pendingQueueFull() {
            return c.pendingQueueFull();
        }
    }
}
