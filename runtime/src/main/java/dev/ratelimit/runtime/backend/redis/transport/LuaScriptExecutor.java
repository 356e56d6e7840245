package dev.ratelimit.runtime.backend.redis.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.jboss.logging.Logger;

import dev.ratelimit.runtime.backend.redis.script.Commands;
import dev.ratelimit.runtime.backend.redis.script.FunctionLibrary;
import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import dev.ratelimit.runtime.backend.redis.script.ScriptLoading;
import dev.ratelimit.runtime.vertx.ConnectionErrors;
import dev.ratelimit.runtime.vertx.EventLoops;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.FastThreadLocal;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClientOptions;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * Runs a recorded script on Redis without blocking: {@code EVALSHA} (or {@code FCALL} of the function library), and
 * {@code EVAL} with the body when the server does not know the script ({@code NOSCRIPT}: a restart, a flush, a new
 * cluster node). It uses public Vert.x API only.
 * <p>
 * Calls are pipelined on a few connections it keeps ({@link ScriptChannel}), not borrowed from a pool per command:
 * a pool caps the calls in flight and refuses the rest, and Redis would pay two system calls per command. Each event
 * loop has a connection of its own, opened on that loop (a client of its own, built with the configured client's
 * options, since a client opens every connection on the event loop of the context it was created on): a caller on
 * an event loop sends, and reads its reply, on its own thread, with no hand-off to another loop. Worker threads use
 * the connection of the event loop of their context where one was made for it. Calls made on one event loop in one
 * turn while others wait for Redis go as one run of the batch script ({@link BatchRun}): Redis, single-threaded and
 * the bound under load, then parses one command and writes one reply for many decisions. A connection that closes,
 * fails or stalls is replaced on the next call; a stalled one is closed with its client, which is the one public way
 * to cut a connection that Redis no longer answers. The architecture page tells the whole path.
 */
public class LuaScriptExecutor implements Commands {

    static final Logger LOG = Logger.getLogger(LuaScriptExecutor.class);

    /** Connections of an executor built without a bound: enough for tests and tools; the application sets its own. */
    public static final int DEFAULT_CONNECTIONS = 2;

    /** As many connections as there are event loops calling: one each. */
    public static final int ONE_PER_EVENT_LOOP = Integer.MAX_VALUE;

    /** A connection with calls waiting and no reply for this long is considered dead. */
    static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(2);

    private static final String[] NONE = new String[0];

    /**
     * Bounds a run of identical calls: a run holds at most this many calls per entry {@code maxBatch} allows. Such
     * calls cost Redis a few integers of reply each, so a burst on one key goes in runs as long as the callers
     * waiting make them, not {@code maxBatch} at a time.
     */
    static final int RUN_CALLS_PER_ENTRY = 16;

    /**
     * Most entries in one run of a batch script (identical consecutive calls the format lets stand as one count
     * once); 1 turns batching off.
     */
    final int maxBatch;
    /** Most calls in one run, however many of them stand as one entry: {@link #RUN_CALLS_PER_ENTRY} per entry. */
    final int maxRunCalls;
    /**
     * On a Redis Cluster, which primary serves each slot: a run holds the calls of one node, and names one key to be
     * routed there (see {@link ClusterSlots} and {@code batch.lua}); null on one Redis.
     */
    final ClusterSlots slots;
    private final int maxConnections;
    private final Vertx vertx;
    private final RedisOptions options;
    /** Every channel made, in order; guarded by itself. */
    private final List<ScriptChannel> channels = new ArrayList<>();
    /** The channel of each event loop (shared by several when there are more loops than connections). */
    private final Map<EventLoop, ScriptChannel> byLoop = new ConcurrentHashMap<>();
    /** The channel of each root context a worker thread called from. */
    private final Map<Context, ScriptChannel> byContext = new ConcurrentHashMap<>();
    /**
     * Event-loop threads keep the channel they were given, looked up on every call: a Netty thread local (an index
     * into the thread's own array on Vert.x threads, where a JDK one probes a hash table) holding the last executor
     * that asked and its channel. One for all executors: an instance's own would stay in the thread's array after the
     * application stopped (Netty's indices are never reclaimed, and dev mode keeps the event loops across reloads); the
     * next executor asking replaces it. Several executors on one thread (a second backend) find theirs in
     * {@link #byLoop} when the other asked last.
     */
    private static final FastThreadLocal<Affinity> AFFINITY = new FastThreadLocal<>();

    private record Affinity(LuaScriptExecutor executor, ScriptChannel channel) {
    }
    /** Script loading and the function library, reached through this executor's own connections. */
    private final ScriptLoading scripts = new ScriptLoading(this);

    /** An executor that sends every call alone, on at most {@link #DEFAULT_CONNECTIONS} connections. */
    public LuaScriptExecutor(Vertx vertx, RedisOptions options) {
        this(vertx, options, 1, DEFAULT_CONNECTIONS);
    }

    /**
     * An executor that gathers calls made with a batch script into runs of at most {@code maxBatch} entries (1: never;
     * identical consecutive calls its format lets stand as one count once, up to {@link #RUN_CALLS_PER_ENTRY} times
     * {@code maxBatch} calls in a run), on connections of its own, one per event loop and opened on it (at most
     * {@code connections}: {@link #ONE_PER_EVENT_LOOP} for no other bound; the loops beyond share those of others),
     * each from a client built with {@code options} (those of the configured client, see {@link ClientOptions}).
     */
    public LuaScriptExecutor(Vertx vertx, RedisOptions options, int maxBatch, int connections) {
        if (maxBatch < 1 || connections < 1) {
            throw new IllegalArgumentException("maxBatch and connections must be at least 1, got " + maxBatch + " and "
                    + connections);
        }
        this.vertx = vertx;
        this.options = options;
        this.maxBatch = maxBatch;
        this.maxRunCalls = (int) Math.min(Integer.MAX_VALUE, (long) RUN_CALLS_PER_ENTRY * maxBatch);
        this.maxConnections = connections;
        this.slots = options.getType() == RedisClientType.CLUSTER ? new ClusterSlots(this) : null;
    }

    /**
     * On a Redis Cluster, the index of the primary whose run the calls of {@code slot} join (one per primary, in the
     * order first seen), as the executor's map says now; -1 when not known or not a cluster.
     */
    public int nodeOfSlot(int slot) {
        return slots == null ? -1 : slots.nodeOf(slot);
    }

    Vertx vertx() {
        return vertx;
    }

    /** Sends one command on the calling thread's connection (loading scripts, a health check, a reset). */
    @Override
    public Uni<Response> send(Request request) {
        return Uni.createFrom().emitter(e -> {
            ScriptChannel ch = channel();
            ch.send(request, ar -> {
                boolean lost = ar.failed() && isConnectionLost(ar.cause());
                ch.answered(!lost);
                if (ar.succeeded()) {
                    e.complete(ar.result());
                } else {
                    ch.check(ar.cause());
                    e.fail(ar.cause());
                }
            });
        });
    }

    /** Loads the scripts so the first decisions need no {@code EVAL} (see {@link ScriptLoading#preload}). */
    public Uni<Void> preload(Iterable<LuaScript> all) {
        return scripts.preload(all);
    }

    /** Calls the scripts of {@code library} as its functions once Redis has it (see {@link ScriptLoading}). */
    public Uni<Boolean> loadFunctions(FunctionLibrary library) {
        return scripts.loadFunctions(library);
    }

    /** As {@link #loadFunctions(FunctionLibrary)}, sweeping past versions' libraries recorded in {@code registry}. */
    public Uni<Boolean> loadFunctions(FunctionLibrary library, String registry) {
        return scripts.loadFunctions(library, registry);
    }

    /** The function a call of {@code script} goes to now, or null: a script. */
    String functionOf(LuaScript script) {
        return scripts.functionOf(script);
    }

    /** Whether a call that failed so is sent again with {@code EVAL} (see {@link ScriptLoading#resendAsEval}). */
    boolean resendAsEval(Throwable t, boolean functionSent) {
        return scripts.resendAsEval(t, functionSent);
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


    /** A failure that says the connection itself is gone (as opposed to an error reply from Redis). */
    static boolean isConnectionLost(Throwable t) {
        return ConnectionErrors.isConnectionLost(t);
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

    /**
     * The channel for the calling thread: on an event loop, that loop's; on a worker thread, the one made for its
     * context's loop, or one made for that context; on any other thread, one of those made, spread by thread.
     */
    ScriptChannel channel() {
        Affinity a = AFFINITY.get();
        if (a != null && a.executor == this) {
            return a.channel;
        }
        ScriptChannel ch;
        EventLoop loop = EventLoops.current();
        if (loop != null) {
            ch = byLoop.get(loop);
            if (ch == null) {
                ch = make(loop, VertxContext.getRootContext(Vertx.currentContext()));
            }
            AFFINITY.set(new Affinity(this, ch));
            return ch;
        }
        Context context = Vertx.currentContext();
        Context root = context == null ? null : VertxContext.getRootContext(context);
        if (root != null && root.isEventLoopContext()) {
            ch = byContext.get(root);
            return ch != null ? ch : make(null, root);
        }
        synchronized (channels) {
            int made = channels.size();
            if (made > 0) {
                return channels.get((int) (Thread.currentThread().getId() % made));
            }
            // no context at all (a plain thread before any call): a context of Vert.x's choosing hosts the first one,
            // made once however many such threads ask at the same moment
            return make(null, vertx.getOrCreateContext());
        }
    }

    /** The channel of {@code loop} (null: unknown) or {@code home}: a new one up to the bound, else one shared. */
    private ScriptChannel make(EventLoop loop, Context home) {
        synchronized (channels) {
            ScriptChannel ch = loop != null ? byLoop.get(loop) : byContext.get(home);
            if (ch == null) {
                int made = channels.size();
                // an event loop gets a connection of its own up to the bound; other callers make one only while there
                // are fewer than loops (a worker of a context no loop has called from yet, a plain thread), else share
                if (made < maxConnections && (loop != null || made < loops())) {
                    ch = new ScriptChannel(this, made, home);
                    channels.add(ch);
                } else {
                    // the bound: this loop shares another's connection, its calls handed to that loop
                    ch = channels.get((byLoop.size() + byContext.size()) % made);
                }
                if (loop != null) {
                    byLoop.put(loop, ch);
                }
                byContext.put(home, ch);
            }
            return ch;
        }
    }

    /** How many event loops Vert.x has: with no other bound, one connection each (worker contexts add none). */
    private int loops() {
        int n = 0;
        for (var ignored : vertx.nettyEventLoopGroup()) {
            n++;
        }
        return Math.max(1, n);
    }

    /**
     * A client for channel {@code index}; called on the channel's home context, since the client opens its connections
     * on the event loop of the context current when it is built. Its pool and connections are named
     * {@code <pool>-ratelimit-<index>} in metrics: under the configured client's name, Micrometer would refuse the
     * gauges of every client after the first.
     */
    Redis newClient(int index) {
        String name = (options.getPoolName() == null ? "redis" : options.getPoolName()) + "-ratelimit-" + index;
        String metrics = options.getNetClientOptions().getMetricsName();
        // quarkus-micrometer reads "<prefix>|<client name>" (the configured client's is "redis|<name>")
        String prefix = metrics != null && metrics.contains("|") ? metrics.substring(0, metrics.indexOf('|')) : "redis";
        RedisOptions own = new RedisOptions(options).setPoolName(name)
                .setNetClientOptions(new NetClientOptions(options.getNetClientOptions()).setMetricsName(prefix + "|" + name));
        return Redis.createClient(vertx, own);
    }

    /** Closes the connections, and the clients the executor built for them. */
    public void close() {
        List<ScriptChannel> all;
        synchronized (channels) {
            all = new ArrayList<>(channels);
        }
        for (ScriptChannel ch : all) {
            ch.close();
        }
    }
}
