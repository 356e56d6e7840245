package dev.ratelimit.runtime.backend.redis.transport;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * One dedicated connection, connected on first use and replaced when lost. Calls sent while it connects wait for it.
 * Its client is its own, built on its home context (a root context of the event loop it serves), so the connection
 * lives on that loop; a connection that stalls is cut by closing that client, and the next call builds another.
 */
final class ScriptChannel {
    final LuaScriptExecutor owner;
    final int index;
    /** The context its client is built on, and its connection's handlers run on. */
    final Context home;
    /** This channel's own client, built on first use and after a stalled connection was cut; guarded by {@code this}. */
    private Redis client;
    volatile RedisConnection connection;
    /** Guarded by {@code this}. */
    Future<RedisConnection> connecting;
    /** Sends (a lone call or a run) not answered yet. */
    final AtomicInteger pending = new AtomicInteger();
    /** Calls sent whose callers have not all been given their answer yet (a run counts its calls). */
    final AtomicInteger calls = new AtomicInteger();
    /** The last sign of life: a reply, or the first call sent to an idle channel. */
    volatile long progressNanos = System.nanoTime();
    /**
     * Calls waiting for the end of their event-loop turn, to go as runs: one gathering on one Redis, one per primary
     * on a cluster (see {@link ClusterSlots}), grown as primaries are seen.
     */
    private volatile Gathering[] gatherings;
    /** The calls of every gathering. */
    final AtomicInteger gatheredCount = new AtomicInteger();
    final AtomicBoolean flushScheduled = new AtomicBoolean();
    /**
     * Set from the first reply to a run in a read from Redis to the end of that read. Replies are
     * handled on the event loop of the call that was sent (normally the connection's own); when
     * event loops share a channel, a race between them only decides whether a reply is put off.
     */
    boolean runReplied;
    /**
     * Set while the callers of a reply are answered (on the same threads as {@link #runReplied}; a
     * race only moves where a run is cut).
     */
    boolean answering;

    ScriptChannel(LuaScriptExecutor owner, int index, Context home) {
        this.owner = owner;
        this.index = index;
        this.home = home;
        this.gatherings = new Gathering[] { new Gathering() };
    }

    /**
     * Calls gathered to go as runs of one script call. The {@linkplain ScriptCall#repeats repeats} of the call
     * gathered before them join its entry. Kept by the threads that gather and send; when event loops share a
     * channel a race between them only moves where a run is cut, and an empty queue starts the count again.
     */
    static final class Gathering {
        final ConcurrentLinkedQueue<PendingCall<?>> queue = new ConcurrentLinkedQueue<>();
        final AtomicInteger count = new AtomicInteger();
        /** The entries among them. */
        final AtomicInteger entries = new AtomicInteger();
        volatile PendingCall<?> last;
        /** Numbers the calls gathered, in order (see {@link PendingCall#joinsPrevious}). */
        long seq;
        /** On a cluster, the sends of this gathering (runs, or calls alone) its node has not answered yet. */
        final AtomicInteger sent = new AtomicInteger();
    }

    /**
     * On a cluster, the sends a node may have unanswered on this channel before the calls of its next run wait for the
     * answer: a reply answers callers whose next calls go to every node, so a node whose gathering went at the end of
     * each event-loop turn would get runs ever smaller (a third of the callers answered, then a ninth, ...; about 3
     * calls a run in {@code ClusterRunsTest}, against 16 held). Held, a node's run is as long as its share of the
     * callers answered meanwhile; each event loop has a channel of its own, so Redis still has a run of another
     * channel to work on while this thread answers.
     */
    static final int SENT_PER_NODE = 1;

    /** The gathering of {@code p}'s run, or null when it goes on its own (a cluster slot whose node is not known). */
    private Gathering gathering(PendingCall<?> p) {
        ClusterSlots slots = owner.slots;
        if (slots == null) {
            return gatherings[0];
        }
        String[] keys = p.call.keys;
        if (keys.length == 0) {
            return null;
        }
        p.slot = ClusterSlots.slot(keys[0]);
        int node = slots.nodeOf(p.slot);
        if (node < 0) {
            return null;
        }
        Gathering[] all = gatherings;
        if (node < all.length) {
            return all[node];
        }
        synchronized (this) {
            all = gatherings;
            if (node >= all.length) {
                Gathering[] grown = Arrays.copyOf(all, node + 1);
                for (int i = all.length; i <= node; i++) {
                    grown[i] = new Gathering();
                }
                gatherings = all = grown;
            }
            return all[node];
        }
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
     * Sends a batchable call: alone when nothing is in flight or off an event loop, else gathered with the others of
     * this event-loop turn, to go as one run when the turn ends or as soon as it is full ({@code maxBatch} entries,
     * identical consecutive calls counting once, up to {@code maxRunCalls} calls). A call made by a caller being
     * answered (the next call of a busy client) is gathered even when nothing is in flight, and ends the run once it
     * holds half as many entries as calls are in flight: about two runs are then in flight, and Redis works on one
     * while this thread answers the callers of the other, where one run would leave each idle while the other works.
     * A burst on one key is one entry however many calls it holds, so this rule does not cut it.
     */
    void submit(PendingCall<?> p) {
        if (!answering && pending.get() == 0 && gatheredCount.get() == 0) {
            sendAlone(p);
            return;
        }
        Context context = Vertx.currentContext();
        if (context == null || !Context.isOnEventLoopThread()) {
            sendAlone(p);
            return;
        }
        Gathering g = gathering(p);
        if (g == null) {
            sendAlone(p);
            return;
        }
        // whether it joins the entry of the call gathered before it, told once here for the sending too
        ScriptCall<?> call = p.call;
        PendingCall<?> last = g.last;
        g.last = p;
        p.seq = ++g.seq;
        p.repeatable = call.format.repeatable(call.args, call.tag);
        p.joinsPrevious = p.repeatable && last != null && last.seq == p.seq - 1 && call.repeats(last.call);
        g.queue.add(p);
        gatheredCount.incrementAndGet();
        int n = g.count.incrementAndGet();
        int entries;
        if (n == 1) {
            entries = 1;
            g.entries.set(1);
        } else if (p.joinsPrevious) {
            entries = g.entries.get();
        } else {
            entries = g.entries.incrementAndGet();
        }
        if (entries >= owner.maxBatch || n >= owner.maxRunCalls
                || owner.slots == null && answering && 2 * entries >= calls.get()) {
            sendRun(g);
        } else if (flushScheduled.compareAndSet(false, true)) {
            context.runOnContext(v -> flush());
        }
    }

    void sendAlone(PendingCall<?> p) {
        calls.incrementAndGet();
        ScriptCall<?> call = p.call;
        String function = owner.functionOf(call.script);
        p.functionSent = function != null;
        send(function != null ? LuaScriptExecutor.request(Command.FCALL, function, call.keys, call.args)
                : LuaScriptExecutor.request(Command.EVALSHA, call.script.sha(), call.keys, call.args), p);
    }

    /**
     * At the end of a turn: sends what was gathered (on a cluster, what a node can take now: see
     * {@link #SENT_PER_NODE}).
     */
    void flush() {
        flushScheduled.set(false); // a call gathered from now on schedules another flush
        for (Gathering g : gatherings) {
            flush(g);
        }
    }

    private void flush(Gathering g) {
        boolean cluster = owner.slots != null;
        while (g.count.get() > 0 && (!cluster || g.sent.get() < SENT_PER_NODE) && sendRun(g) > 0) {
            // runs of at most maxBatch entries
        }
    }

    /** On a cluster, a send of {@code g} was answered: what waited for it goes now. */
    void sendAnswered(Gathering g) {
        g.sent.decrementAndGet();
        if (g.count.get() > 0) {
            flush(g);
        }
    }

    /**
     * Sends calls of {@code g}, up to {@code maxBatch} entries and {@code maxRunCalls} calls, a lone one as itself;
     * returns how many it took. A run holding a call that cannot stand with others as one entry goes call by call
     * (see {@link BatchFormat#repeatsAllowed}), so it takes at most {@code maxBatch} calls.
     */
    int sendRun(Gathering g) {
        int max = owner.maxBatch;
        List<PendingCall<?>> run = new ArrayList<>(max);
        int taken = 0;
        int entries = 0;
        boolean compact = true; // every call taken may stand with others as one entry
        PendingCall<?> previous = null;
        PendingCall<?> next;
        while (taken < owner.maxRunCalls && (next = g.queue.peek()) != null) {
            if (previous != null) {
                boolean joins = compact && next.joins(previous);
                if (!joins && entries >= max || compact && taken >= max && !next.repeatable) {
                    break;
                }
            }
            // the call peeked at, unless an event loop sharing this channel took it meanwhile: then the one after,
            // taken all the same (a race only moves where a run is cut)
            PendingCall<?> p = g.queue.poll();
            if (p == null) {
                break;
            }
            g.count.decrementAndGet();
            gatheredCount.decrementAndGet();
            taken++;
            if (compact && !p.repeatable) {
                compact = false;
                entries = taken - 1; // the calls before it go one by one now
            }
            if (previous == null || !compact || !p.joins(previous)) {
                entries++;
            }
            previous = p;
            if (p.done == 0) { // else its caller gave up while it waited
                run.add(p);
            }
        }
        g.entries.addAndGet(-entries);
        Gathering counted = owner.slots != null && !run.isEmpty() ? g : null;
        if (counted != null) {
            g.sent.incrementAndGet();
        }
        if (run.size() == 1) {
            run.get(0).gathering = counted;
            sendAlone(run.get(0));
        } else if (!run.isEmpty()) {
            sendBatch(run, counted);
        }
        return taken;
    }

    void sendBatch(List<PendingCall<?>> run, Gathering counted) {
        BatchRun b = new BatchRun(this, run.toArray(new PendingCall<?>[0]), counted);
        Request request;
        try {
            request = b.request(false);
        } catch (RuntimeException e) {
            // a format that cannot lay out this run: its calls fail now rather than wait for their timeouts
            b.failAll(e);
            b.answered();
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
    boolean putOff(BatchRun batch, AsyncResult<Response> ar) {
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
        if (failure != null && LuaScriptExecutor.isConnectionLost(failure)) {
            retire(c, failure.toString(), false);
        } else if (pending.get() > 0 && System.nanoTime() - progressNanos > LuaScriptExecutor.STALL_NANOS) {
            retire(c, "no reply for " + TimeUnit.NANOSECONDS.toMillis(LuaScriptExecutor.STALL_NANOS) + " ms while calls waited", true);
        }
    }

    synchronized Future<RedisConnection> connect() {
        RedisConnection c = connection;
        if (c != null) {
            return Future.succeededFuture(c);
        }
        if (connecting != null) {
            return connecting;
        }
        Promise<RedisConnection> opened = Promise.promise();
        Future<RedisConnection> attempt = opened.future();
        // assigned before it can complete (it completes on the home context, later): its handler must find it to
        // clear it, or a completed attempt would stay for good and every reconnection get the dead connection
        connecting = attempt;
        home.runOnContext(v -> {
            Redis own;
            try {
                own = client();
            } catch (RuntimeException e) {
                opened.fail(e);
                return;
            }
            own.connect().onComplete(opened);
        });
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
                    LuaScriptExecutor.LOG.debugf("Rate-limit Redis connection %d opened", index);
                } else {
                    LuaScriptExecutor.LOG.debugf("Rate-limit Redis connection %d could not open: %s", index, ar.cause());
                }
            }
        });
        return attempt;
    }

    /** The client, built on the home context the first time (this runs there). */
    private synchronized Redis client() {
        if (client == null) {
            client = owner.newClient(index);
        }
        return client;
    }

    void retire(RedisConnection c, String why, boolean hung) {
        Redis cut = null;
        synchronized (this) {
            if (connection != c) {
                return; // already replaced
            }
            connection = null;
            if (hung) {
                // back in the client's pool a hung connection would hang its next user, and the public API has no
                // way to cut one socket: close this channel's client, which closes its sockets (failing the calls
                // still waiting on it); the next call builds another
                cut = client;
                client = null;
            }
        }
        LuaScriptExecutor.LOG.debugf("Rate-limit Redis connection %d dropped (%s); the next call opens another", index, why);
        if (cut != null) {
            cut.close();
        } else {
            c.close(); // back to the pool, which evicts it if broken
        }
    }

    /** Drops the connection and closes this channel's client. */
    void close() {
        RedisConnection c = connection;
        if (c != null) {
            retire(c, "executor closed", false);
        }
        Redis own;
        synchronized (this) {
            own = client;
            client = null;
        }
        if (own != null) {
            own.close();
        }
    }
}
