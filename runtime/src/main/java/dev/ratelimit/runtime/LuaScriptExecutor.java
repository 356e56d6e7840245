package dev.ratelimit.runtime;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.Function;

import org.jboss.logging.Logger;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.operators.AbstractUni;
import io.smallrye.mutiny.subscription.UniSubscriber;
import io.smallrye.mutiny.subscription.UniSubscription;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;
import io.vertx.redis.client.impl.PooledRedisConnection;

/**
 * Runs a recorded script on the Quarkus Redis client, without blocking: {@code EVALSHA} first, and
 * when the server does not know the script ({@code NOSCRIPT}: a restart, {@code SCRIPT FLUSH}, a
 * cluster node that never saw it, a promoted replica) {@code EVAL} with the body, which also caches
 * it there for the next call. Works the same on standalone, sentinel and cluster clients, since the
 * client routes each command by its first key.
 * <h2>Connections: pipelined, not pooled</h2>
 * The client's {@code send} borrows a pooled connection for each command and holds it until the
 * reply: at most {@code max-pool-size} (default 6) decisions are in flight, the next
 * {@code max-pool-waiting} (24) queue, and any beyond are refused ({@code ConnectionPoolTooBusyException})
 * — 64 concurrent requests already fall to the failure mode. And Redis, seeing one command per
 * connection at a time, pays a read and a write system call for each.
 * <p>
 * So calls are pipelined instead, on a few connections this executor takes from the client and
 * keeps ({@code connections} at most, whatever the load): any number of calls are in flight on
 * each, Redis reads and answers them in batches, and nothing is refused. A caller on an event loop
 * keeps using the connection bound to its own event loop, so its reply is parsed and its decision
 * completed on its own thread, without a hand-off; other threads share them. Connections are taken
 * lazily, on first use, so an application that never decides never holds one.
 * <p>
 * A connection is dropped and replaced on the next call when it closes, fails, or answered nothing
 * for {@link #STALL_NANOS} while calls waited on it (checked when a caller gives up on a call: a hung
 * connection would otherwise time out every call sent on it until TCP gives up, many minutes later). With a cluster client each connection is a cluster connection: it keeps
 * a link to every primary and routes by slot, following {@code MOVED}/{@code ASK}; when a node goes
 * away it is replaced with a fresh view of the slots.
 * <h2>Batches</h2>
 * A call made with a batch script ({@link #execute(LuaScript, LuaScript, BatchFormat, Object, String[], String[], Function)})
 * is sent alone when its connection has nothing in flight, so an idle application waits for nothing.
 * When calls are already waiting for Redis, it joins the calls made on the same event loop in the
 * same turn (the replies of one read from Redis release many callers, and each makes its next call)
 * and they go as one run of the batch script, up to {@code maxBatch} calls per run (the next calls of
 * callers answered together go in two runs, so that Redis works on one while the other is made; see
 * {@code Channel.submit}): Redis parses one
 * command, runs one script, and writes one reply for all of them. This is what keeps Redis, whose
 * one thread is the bound under load, from spending most of its time on per-command work. And the
 * replies to several runs that arrive together are handled one event-loop task each, so that the run
 * made by the callers of one goes to Redis while the callers of the next are answered. Callers
 * on other threads (workers, blocking code) are sent alone, as are all calls on a cluster (a batch
 * would span slots).
 */
public class LuaScriptExecutor {

    private static final Logger LOG = Logger.getLogger(LuaScriptExecutor.class);

    /**
     * Connections an executor holds unless told otherwise. A pipelined connection carries far more
     * than one Redis core can answer; more of them only save thread hand-offs (one per event loop),
     * and each is taken from the client's pool ({@code quarkus.redis.max-pool-size}, default 6,
     * leaving 4 to the application).
     */
    public static final int DEFAULT_CONNECTIONS = 2;

    /** A connection with calls waiting and no reply for this long is considered dead. */
    static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(2);

    private static final String[] NONE = new String[0];

    private final io.vertx.mutiny.redis.client.Redis redis;
    private final Redis client;
    /** Most calls in one run of a batch script; 1 turns batching off. */
    private final int maxBatch;
    private final Channel[] channels;
    private int created;
    /** Event-loop threads keep the channel they were given. */
    private final ThreadLocal<Channel> affinity = new ThreadLocal<>();

    /** An executor that sends every call alone. */
    public LuaScriptExecutor(io.vertx.mutiny.redis.client.Redis redis) {
        this(redis, 1, DEFAULT_CONNECTIONS);
    }

    /**
     * An executor that gathers calls made with a batch script into runs of at most {@code maxBatch}
     * calls (1: never), over at most {@code connections} connections.
     */
    public LuaScriptExecutor(io.vertx.mutiny.redis.client.Redis redis, int maxBatch, int connections) {
        if (maxBatch < 1 || connections < 1) {
            throw new IllegalArgumentException("maxBatch and connections must be at least 1, got " + maxBatch + " and "
                    + connections);
        }
        this.redis = redis;
        this.client = redis.getDelegate();
        this.maxBatch = maxBatch;
        this.channels = new Channel[connections];
    }

    /** Runs {@code script} with these keys and arguments. */
    public Uni<Response> execute(LuaScript script, String[] keys, String[] args) {
        return new ScriptCall<>(this, script, null, null, null, keys, args == null ? NONE : args, Function.identity());
    }

    /**
     * Runs {@code script} and converts its reply on arrival: the same as {@code execute(...).map(convert)}
     * without a Mutiny operator (which Quarkus decorates for context propagation) on every decision.
     * {@code convert} must not fail for the replies the script gives.
     */
    public <T> Uni<T> execute(LuaScript script, String[] keys, String[] args, Function<Response, T> convert) {
        return new ScriptCall<>(this, script, null, null, null, keys, args == null ? NONE : args, convert);
    }

    /**
     * Runs {@code script}, or, when Redis is busy, this call among others in one run of {@code batch}
     * (see the class comment); with a null {@code batch}, always alone. {@code format} lays out the
     * arguments of a run as {@code batch} reads them, and {@code tag}, anything the caller attaches,
     * is handed to it with this call's arguments; the run's keys are every call's keys, in order.
     * {@code batch} replies one flat array: per call, in order, the elements of the array {@code script} would have
     * given ({@link BatchFormat#replyWidth} of them; an error in the first place of a call that failed alone);
     * {@code convert} gets this call's as an array. Every batchable call of one executor must name the same
     * {@code batch} script and format: a run is sent with its first call's.
     */
    public <T> Uni<T> execute(LuaScript script, LuaScript batch, BatchFormat format, Object tag, String[] keys,
            String[] args, Function<Response, T> convert) {
        if (batch != null && format == null) {
            throw new IllegalArgumentException("batch script " + batch.name() + " given without a format for its arguments");
        }
        return new ScriptCall<>(this, script, maxBatch > 1 ? batch : null, format, tag, keys, args == null ? NONE : args,
                convert);
    }

    /** How the calls of one run become the batch script's arguments (its keys are every call's keys, in order). */
    public interface BatchFormat {
        /**
         * Appends the arguments of a run to {@code request}: per call, its number of keys, its own arguments and the
         * tag its caller gave.
         */
        void write(Request request, int[] keyCounts, String[][] args, Object[] tags);

        /**
         * The script a run of these calls uses: by default the batch script they were made with; a format may pick a
         * narrower one that decides every call of this run (it must read the same arguments).
         */
        default LuaScript script(LuaScript batch, Object[] tags) {
            return batch;
        }

        /**
         * How many elements of a run's reply are a call's. By default the layout of the decide scripts: whether every
         * policy admitted, then four values per key.
         */
        default int replyWidth(int keyCount, Object tag) {
            return 1 + 4 * keyCount;
        }
    }

    /**
     * Loads the scripts so the first decisions need no {@code EVAL}. Best effort: a failure only
     * means the first call pays the fallback.
     */
    public Uni<Void> preload(Iterable<LuaScript> scripts) {
        Uni<Void> chain = Uni.createFrom().voidItem();
        for (LuaScript s : scripts) {
            chain = chain.chain(() -> redis.send(io.vertx.mutiny.redis.client.Request
                    .cmd(io.vertx.mutiny.redis.client.Command.SCRIPT).arg("LOAD").arg(s.body()))
                    .onItem().invoke(r -> {
                        if (!s.sha().equals(r.toString())) {
                            // would mean the build hashed something else than what Redis runs
                            LOG.warnf("Redis reported SHA %s for script %s, the build recorded %s", r, s.name(), s.sha());
                        }
                    })
                    .replaceWithVoid());
        }
        return chain;
    }

    static boolean isNoScript(Throwable t) {
        String m = t.getMessage();
        return m != null && m.startsWith("NOSCRIPT");
    }

    /** A failure that says the connection itself is gone (as opposed to an error reply from Redis). */
    static boolean isConnectionLost(Throwable t) {
        if (t instanceof IOException) {
            return true;
        }
        String m = t.getMessage();
        return m != null && (m.startsWith("CONNECTION_CLOSED") || m.startsWith("Connection is closed"));
    }

    static Request request(Command command, String scriptOrSha, String[] keys, String[] args) {
        Request r = Request.cmd(command).arg(scriptOrSha).arg(keys.length);
        for (String k : keys) {
            r.arg(k);
        }
        for (String a : args) {
            r.arg(a);
        }
        return r;
    }

    /** The channel for the calling thread. */
    private Channel channel() {
        Channel ch = affinity.get();
        if (ch != null) {
            return ch;
        }
        boolean eventLoop = Context.isOnEventLoopThread();
        synchronized (channels) {
            if (created < channels.length && (eventLoop || created == 0)) {
                ch = new Channel(this, created);
                channels[created++] = ch;
            } else {
                // past the limit, or a worker thread: share, spread by thread
                ch = channels[(int) (Thread.currentThread().getId() % created)];
            }
        }
        if (eventLoop) {
            affinity.set(ch);
        }
        return ch;
    }

    /**
     * One dedicated connection, connected on first use and replaced when lost. Calls sent while it
     * connects wait for it.
     */
    static final class Channel {
        private final LuaScriptExecutor owner;
        private final int index;
        private volatile RedisConnection connection;
        /** Guarded by {@code this}. */
        private Future<RedisConnection> connecting;
        /** Sends (a lone call or a run) not answered yet. */
        private final AtomicInteger pending = new AtomicInteger();
        /** Calls sent whose callers have not all been given their answer yet (a run counts its calls). */
        private final AtomicInteger calls = new AtomicInteger();
        /** The last sign of life: a reply, or the first call sent to an idle channel. */
        private volatile long progressNanos = System.nanoTime();
        /** Calls waiting for the end of their event-loop turn, to go as one batch. */
        private final ConcurrentLinkedQueue<Pending<?>> gathered = new ConcurrentLinkedQueue<>();
        private final AtomicInteger gatheredCount = new AtomicInteger();
        private final AtomicBoolean flushScheduled = new AtomicBoolean();
        /**
         * Set from the first reply to a run in a read from Redis to the end of that read. Replies are
         * handled on the event loop of the call that was sent (normally the connection's own); when
         * event loops share a channel, a race between them only decides whether a reply is put off.
         */
        private boolean runReplied;
        /**
         * Set while the callers of a reply are answered (on the same threads as {@link #runReplied}; a
         * race only moves where a run is cut).
         */
        private boolean answering;

        Channel(LuaScriptExecutor owner, int index) {
            this.owner = owner;
            this.index = index;
        }

        void send(Request request, Handler<AsyncResult<Response>> handler) {
            if (pending.getAndIncrement() == 0) {
                progressNanos = System.nanoTime(); // idle until now: waiting starts here
            }
            RedisConnection c = connection;
            if (c != null) {
                c.send(request).onComplete(handler);
                return;
            }
            connect().onComplete(ar -> {
                if (ar.succeeded()) {
                    ar.result().send(request).onComplete(handler);
                } else {
                    handler.handle(Future.failedFuture(ar.cause()));
                }
            });
        }

        /**
         * Sends a batchable call: alone when nothing is in flight or off an event loop, else gathered
         * with the others of this event-loop turn, to go as one run when the turn ends or as soon as it
         * is full. A call made by a caller being answered (the next call of a busy client) is gathered
         * even when nothing is in flight, and ends the run once it holds half as many calls as are in
         * flight: else the callers answered by one reply would all make their next calls into one run,
         * and Redis and this thread would take turns, each idle while the other works. Cut that way,
         * about two runs are in flight, and Redis works on one while this thread answers the callers
         * of the other.
         */
        void submit(Pending<?> p) {
            if (!answering && pending.get() == 0 && gatheredCount.get() == 0) {
                sendAlone(p);
                return;
            }
            Context context = Vertx.currentContext();
            if (context == null || !Context.isOnEventLoopThread()) {
                sendAlone(p);
                return;
            }
            gathered.add(p);
            int n = gatheredCount.incrementAndGet();
            if (n >= owner.maxBatch || answering && 2 * n >= calls.get()) {
                sendRun();
            } else if (flushScheduled.compareAndSet(false, true)) {
                context.runOnContext(v -> flush());
            }
        }

        private void sendAlone(Pending<?> p) {
            calls.incrementAndGet();
            ScriptCall<?> call = p.call;
            send(request(Command.EVALSHA, call.script.sha(), call.keys, call.args), p);
        }

        /** At the end of a turn: sends what was gathered. */
        private void flush() {
            flushScheduled.set(false); // a call gathered from now on schedules another flush
            while (gatheredCount.get() > 0 && sendRun() > 0) {
                // runs of at most maxBatch calls
            }
        }

        /** Sends up to {@code maxBatch} gathered calls, a lone one as itself; returns how many it took. */
        private int sendRun() {
            int max = owner.maxBatch;
            List<Pending<?>> run = new ArrayList<>(max);
            int taken = 0;
            Pending<?> p;
            while (taken < max && (p = gathered.poll()) != null) {
                gatheredCount.decrementAndGet();
                taken++;
                if (p.done == 0) { // else its caller gave up while it waited
                    run.add(p);
                }
            }
            if (run.size() == 1) {
                sendAlone(run.get(0));
            } else if (!run.isEmpty()) {
                sendBatch(run);
            }
            return taken;
        }

        private void sendBatch(List<Pending<?>> run) {
            Batch b = new Batch(this, run.toArray(new Pending<?>[0]));
            Request request;
            try {
                request = b.request(Command.EVALSHA);
            } catch (RuntimeException e) {
                // a format that cannot lay out this run: its calls fail now rather than wait for their timeouts
                b.failAll(e);
                return;
            }
            calls.addAndGet(run.size());
            send(request, b);
        }

        /**
         * Whether to put off handling a run's reply to an event-loop task of its own, as is done for
         * every reply to a run but the first of a read from Redis. What is written to a connection while
         * one of its reads is handled, Vert.x flushes only once the whole read is handled: with all
         * replies of a read handled at once, the runs their callers make would reach Redis together,
         * after the last one, and Redis would wait idle until then, as this thread would while Redis
         * works on them. One task each, the run made by the first reply's callers goes at the end of the
         * read and each later one as soon as it is made: Redis works on one while this thread makes the
         * next.
         */
        boolean putOff(Batch batch, AsyncResult<Response> ar) {
            Context context = Vertx.currentContext();
            if (context == null || !Context.isOnEventLoopThread()) {
                return false;
            }
            if (!runReplied) {
                runReplied = true;
                context.runOnContext(v -> runReplied = false); // runs once the read is handled
                return false;
            }
            context.runOnContext(v -> batch.replied(ar));
            return true;
        }

        /** Every send gets exactly one call of its handler: a reply, an error, or the connection's loss. */
        void answered(boolean replied) {
            pending.decrementAndGet();
            if (replied) {
                progressNanos = System.nanoTime();
            }
        }

        /** A call failed or gave up waiting: drop the connection if it is lost or hung. */
        void check(Throwable failure) {
            RedisConnection c = connection;
            if (c == null) {
                return;
            }
            if (failure != null && isConnectionLost(failure)) {
                retire(c, failure.toString(), false);
            } else if (pending.get() > 0 && System.nanoTime() - progressNanos > STALL_NANOS) {
                retire(c, "no reply for " + TimeUnit.NANOSECONDS.toMillis(STALL_NANOS) + " ms while calls waited", true);
            }
        }

        private synchronized Future<RedisConnection> connect() {
            RedisConnection c = connection;
            if (c != null) {
                return Future.succeededFuture(c);
            }
            if (connecting != null) {
                return connecting;
            }
            // assigned before its handler is attached: a connection the pool hands out at once completes the
            // future here, on this thread, and the handler must find it to clear it (cleared before it was
            // assigned, a completed attempt stayed for good and every reconnection got the dead connection)
            Future<RedisConnection> attempt = owner.client.connect();
            connecting = attempt;
            attempt.onComplete(ar -> {
                synchronized (this) {
                    if (connecting == attempt) {
                        connecting = null;
                    }
                    if (ar.succeeded()) {
                        RedisConnection conn = ar.result();
                        conn.exceptionHandler(t -> retire(conn, t.toString(), false));
                        conn.endHandler(v -> retire(conn, "closed", false));
                        progressNanos = System.nanoTime();
                        connection = conn;
                        LOG.debugf("Rate-limit Redis connection %d opened", index);
                    } else {
                        LOG.debugf("Rate-limit Redis connection %d could not open: %s", index, ar.cause());
                    }
                }
            });
            return attempt;
        }

        private void retire(RedisConnection c, String why, boolean hung) {
            synchronized (this) {
                if (connection != c) {
                    return; // already replaced
                }
                connection = null;
            }
            LOG.debugf("Rate-limit Redis connection %d dropped (%s); the next call opens another", index, why);
            if (hung && c instanceof PooledRedisConnection) {
                // back in the pool a hung connection would hang its next user: close the socket, which
                // fails the calls still waiting on it and evicts it (the public API cannot do this)
                ((PooledRedisConnection) c).actual().forceClose();
            } else {
                c.close(); // back to the pool, which evicts it if broken
            }
        }
    }

    /**
     * One script call as a {@code Uni}: sends on subscription, answers once. Written against
     * Mutiny's operator API rather than {@code Uni.createFrom().emitter(...)}: a decision is on every
     * request's path, and this is one object per call where the generic route takes several.
     */
    private static final class ScriptCall<T> extends AbstractUni<T> {
        private final LuaScriptExecutor executor;
        private final LuaScript script;
        /** The batch script, or null: always sent alone. */
        private final LuaScript batch;
        private final BatchFormat format;
        private final Object tag;
        private final String[] keys;
        private final String[] args;
        private final Function<Response, T> convert;

        ScriptCall(LuaScriptExecutor executor, LuaScript script, LuaScript batch, BatchFormat format, Object tag,
                String[] keys, String[] args, Function<Response, T> convert) {
            this.executor = executor;
            this.script = script;
            this.batch = batch;
            this.format = format;
            this.tag = tag;
            this.keys = keys;
            this.args = args;
            this.convert = convert;
        }

        @Override
        public void subscribe(UniSubscriber<? super T> subscriber) {
            Channel ch = executor.channel();
            Pending<T> p = new Pending<>(ch, this, subscriber);
            subscriber.onSubscribe(p);
            if (p.done != 0) {
                return; // cancelled at once: nothing to send
            }
            if (batch != null) {
                ch.submit(p);
            } else {
                ch.sendAlone(p);
            }
        }
    }

    /** A call in flight: the reply handler, and the subscription its subscriber may cancel. */
    private static final class Pending<T> implements Handler<AsyncResult<Response>>, UniSubscription {
        @SuppressWarnings("rawtypes")
        private static final AtomicIntegerFieldUpdater<Pending> DONE = AtomicIntegerFieldUpdater.newUpdater(Pending.class,
                "done");

        private final Channel channel;
        private final ScriptCall<T> call;
        private final UniSubscriber<? super T> subscriber;
        private volatile int done;
        private boolean evalSent;

        Pending(Channel channel, ScriptCall<T> call, UniSubscriber<? super T> subscriber) {
            this.channel = channel;
            this.call = call;
            this.subscriber = subscriber;
        }

        @Override
        public void handle(AsyncResult<Response> ar) {
            channel.answered(ar.succeeded() || !isConnectionLost(ar.cause()));
            if (ar.succeeded()) {
                channel.answering = true;
                try {
                    succeed(ar.result());
                } finally {
                    channel.answering = false;
                    channel.calls.decrementAndGet(); // its caller has its answer (and may have made its next call)
                }
                return;
            }
            Throwable failure = ar.cause();
            if (!evalSent && isNoScript(failure)) {
                evalSent = true;
                LOG.debugf("Script %s (%s) not cached by Redis, sending it with EVAL", call.script.name(), call.script.sha());
                channel.send(LuaScriptExecutor.request(Command.EVAL, call.script.body(), call.keys, call.args), this);
                return;
            }
            channel.check(failure);
            try {
                fail(failure);
            } finally {
                channel.calls.decrementAndGet();
            }
        }

        void succeed(Response reply) {
            if (DONE.compareAndSet(this, 0, 1)) {
                T item;
                try {
                    item = call.convert.apply(reply);
                } catch (RuntimeException e) {
                    subscriber.onFailure(e);
                    return;
                }
                subscriber.onItem(item);
            }
        }

        void fail(Throwable failure) {
            if (DONE.compareAndSet(this, 0, 1)) {
                subscriber.onFailure(failure);
            }
        }

        @Override
        public void cancel() {
            // the caller gave up (its timeout): the reply, if it ever comes, is dropped
            if (DONE.compareAndSet(this, 0, 1)) {
                channel.check(null);
            }
        }
    }

    /** Calls sent as one run of their batch script, and the handler of its reply. */
    private static final class Batch implements Handler<AsyncResult<Response>> {
        private final Channel channel;
        private final Pending<?>[] calls;
        private final Object[] tags;
        /** Chosen by the format when the run is first laid out. */
        private LuaScript script;
        private boolean evalSent;

        Batch(Channel channel, Pending<?>[] calls) {
            this.channel = channel;
            this.calls = calls;
            this.tags = new Object[calls.length];
            for (int i = 0; i < calls.length; i++) {
                tags[i] = calls[i].call.tag;
            }
        }

        /** The run as a command: {@code EVALSHA} with the script's SHA, or {@code EVAL} with its body. */
        Request request(Command command) {
            if (script == null) {
                ScriptCall<?> first = calls[0].call;
                script = first.format.script(first.batch, tags);
            }
            String scriptOrSha = command == Command.EVAL ? script.body() : script.sha();
            int keyCount = 0;
            for (Pending<?> p : calls) {
                keyCount += p.call.keys.length;
            }
            Request r = Request.cmd(command).arg(scriptOrSha).arg(keyCount);
            for (Pending<?> p : calls) {
                for (String k : p.call.keys) {
                    r.arg(k);
                }
            }
            int[] keyCounts = new int[calls.length];
            String[][] args = new String[calls.length][];
            for (int i = 0; i < calls.length; i++) {
                ScriptCall<?> c = calls[i].call;
                keyCounts[i] = c.keys.length;
                args[i] = c.args;
            }
            calls[0].call.format.write(r, keyCounts, args, tags);
            return r;
        }

        @Override
        public void handle(AsyncResult<Response> ar) {
            channel.answered(ar.succeeded() || !isConnectionLost(ar.cause()));
            if (!channel.putOff(this, ar)) {
                replied(ar);
            }
        }

        private void replied(AsyncResult<Response> ar) {
            if (ar.succeeded()) {
                Response replies = ar.result();
                BatchFormat format = calls[0].call.format;
                channel.answering = true;
                try {
                    int at = 0;
                    for (int i = 0; i < calls.length; i++) {
                        ScriptCall<?> c = calls[i].call;
                        int width = 0;
                        try {
                            width = format.replyWidth(c.keys.length, c.tag);
                            if (width < 1 || at + width > replies.size()) {
                                calls[i].fail(new IllegalStateException("Script " + script.name() + " replied "
                                        + replies.size() + " values for a run of " + calls.length
                                        + " calls; this call's share starts at " + at + " and takes " + width));
                            } else {
                                Response first = replies.get(at);
                                if (first != null && first.type() == ResponseType.ERROR) {
                                    // this call failed in Redis, alone: as it would outside a batch
                                    calls[i].fail(first instanceof Throwable t ? t : new IllegalStateException(first.toString()));
                                } else {
                                    calls[i].succeed(new ReplySlice(replies, at, width));
                                }
                            }
                        } catch (RuntimeException e) {
                            // a reply that cannot be read, or a subscriber that throws, must not keep the other
                            // callers of the run waiting; the call fails unless it already had its answer
                            LOG.errorf(e, "A rate-limit caller failed handling its decision");
                            try {
                                calls[i].fail(e);
                            } catch (RuntimeException again) {
                                LOG.errorf(again, "A rate-limit caller failed handling a failed decision");
                            }
                        }
                        at += Math.max(width, 0);
                    }
                } finally {
                    channel.answering = false;
                    channel.calls.addAndGet(-calls.length); // counted until its callers have their answers
                }
                return;
            }
            Throwable failure = ar.cause();
            if (!evalSent && isNoScript(failure)) {
                evalSent = true;
                LOG.debugf("Script %s (%s) not cached by Redis, sending it with EVAL", script.name(), script.sha());
                Request eval;
                try {
                    eval = request(Command.EVAL);
                } catch (RuntimeException e) {
                    failure = e; // laid out once already, but a format may still fail: fail the run now
                    eval = null;
                }
                if (eval != null) {
                    channel.send(eval, this);
                    return;
                }
            } else {
                channel.check(failure);
            }
            try {
                failAll(failure);
            } finally {
                channel.calls.addAndGet(-calls.length);
            }
        }

        void failAll(Throwable failure) {
            for (Pending<?> p : calls) {
                try {
                    p.fail(failure);
                } catch (RuntimeException e) {
                    LOG.errorf(e, "A rate-limit caller failed handling a failed decision");
                }
            }
        }
    }

    /** One call's elements of a run's flat reply, as the array its script alone would have replied. */
    private static final class ReplySlice implements Response {
        private final Response run;
        private final int from;
        private final int size;

        ReplySlice(Response run, int from, int size) {
            this.run = run;
            this.from = from;
            this.size = size;
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
}
