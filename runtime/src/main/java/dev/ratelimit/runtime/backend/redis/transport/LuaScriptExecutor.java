package dev.ratelimit.runtime.backend.redis.transport;

import dev.ratelimit.runtime.backend.redis.script.FunctionLibrary;
import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import dev.ratelimit.runtime.backend.redis.script.StaleLibraries;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import org.jboss.logging.Logger;

import dev.ratelimit.runtime.resilience.BackendErrors;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.impl.ContextInternal;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.net.NetClientOptions;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * Runs a recorded script on the Quarkus Redis client without blocking: {@code EVALSHA}, and {@code EVAL} with the
 * body when the server does not know the script ({@code NOSCRIPT}: a restart, a flush, a new cluster node).
 * <p>
 * Calls are pipelined on a few connections it keeps ({@link ScriptChannel}), not borrowed from the client's pool
 * per command: a pool caps the calls in flight and refuses the rest, and Redis would pay two system calls per
 * command. Each event loop has a connection of its own, opened on that loop (a client of its own, built with the
 * configured client's options, since a client opens every connection on the one event loop it was created on):
 * a caller on an event loop sends, and reads its reply, on its own thread, with no hand-off to another loop.
 * Worker threads use the connection of the event loop of their context. Calls made on one event loop in one turn
 * while others wait for Redis go as one run of the batch script ({@link BatchRun}): Redis, single-threaded and
 * the bound under load, then parses one command and writes one reply for many decisions. A connection that
 * closes, fails or stalls is replaced on the next call. The architecture page tells the whole path.
 */
public class LuaScriptExecutor {

    static final Logger LOG = Logger.getLogger(LuaScriptExecutor.class);

    /**
     * Connections an executor on the client's pool holds unless told otherwise: the pool opens them all on one
     * event loop, so more only help while callers on other loops are handed to it.
     */
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

    public final io.vertx.mutiny.redis.client.Redis redis;
    final Redis client;
    /**
     * Most entries in one run of a batch script (identical consecutive calls the format lets stand as one count
     * once); 1 turns batching off.
     */
    final int maxBatch;
    /** Most calls in one run, however many of them stand as one entry: {@link #RUN_CALLS_PER_ENTRY} per entry. */
    final int maxRunCalls;
    private final int maxConnections;
    /** With {@link #options}, builds a client per event loop; both null: connections come from {@link #client}'s pool. */
    private final VertxInternal vertx;
    private final RedisOptions options;
    /** Every channel made, in order; guarded by itself. */
    private final List<ScriptChannel> channels = new ArrayList<>();
    /** The channel of each event loop (shared by several when there are more loops than connections). */
    private final Map<EventLoop, ScriptChannel> byLoop = new ConcurrentHashMap<>();
    /** Event-loop threads keep the channel they were given. */
    private final ThreadLocal<ScriptChannel> affinity = new ThreadLocal<>();
    /** The function library calls go to, once loaded (see {@link #loadFunctions}); null: scripts only. */
    private volatile FunctionLibrary functions;
    /** The library to use; null once Redis refused it for good (see {@link #refuse}), or before {@link #loadFunctions}. */
    private volatile FunctionLibrary wanted;
    /** Set while the library is being loaded. */
    private final AtomicBoolean loading = new AtomicBoolean();
    /** While the library is not in use, the earliest time ({@link System#nanoTime}) a call tries to load it again. */
    private volatile long nextLoadNanos;
    /** When the library was last loaded, and how long the last wait before loading it again was. */
    private volatile long loadedNanos;
    private volatile long loadBackoffNanos;
    /** The last wait after Redis refused the library (0: not refused since it was last loaded). */
    private volatile long refusalBackoffNanos;

    /** An executor that sends every call alone, on connections from the client's pool. */
    public LuaScriptExecutor(io.vertx.mutiny.redis.client.Redis redis) {
        this(redis, 1, DEFAULT_CONNECTIONS);
    }

    /**
     * An executor that gathers calls made with a batch script into runs of at most {@code maxBatch}
     * entries (1: never; identical consecutive calls its format lets stand as one count once, up to
     * {@link #RUN_CALLS_PER_ENTRY} times {@code maxBatch} calls in a run), over at most {@code connections} connections from the client's pool. The pool opens them
     * on the event loop the client was created on: callers on other loops hand their calls to it.
     */
    public LuaScriptExecutor(io.vertx.mutiny.redis.client.Redis redis, int maxBatch, int connections) {
        this(redis, maxBatch, connections, null, null);
    }

    /**
     * An executor whose connections are its own, one per event loop and opened on it (at most {@code connections}:
     * {@link #ONE_PER_EVENT_LOOP} for no other bound; the loops beyond share those of others), each from a client
     * built with {@code options}, those {@code redis} was built with (see {@link ClientOptions}). {@code redis}
     * still loads the scripts.
     */
    public LuaScriptExecutor(io.vertx.mutiny.redis.client.Redis redis, int maxBatch, int connections, Vertx vertx,
            RedisOptions options) {
        if (maxBatch < 1 || connections < 1) {
            throw new IllegalArgumentException("maxBatch and connections must be at least 1, got " + maxBatch + " and "
                    + connections);
        }
        if ((vertx == null) != (options == null)) {
            throw new IllegalArgumentException("a client per event loop needs both Vert.x and the client's options");
        }
        this.redis = redis;
        this.client = redis.getDelegate();
        this.maxBatch = maxBatch;
        this.maxRunCalls = (int) Math.min(Integer.MAX_VALUE, (long) RUN_CALLS_PER_ENTRY * maxBatch);
        this.maxConnections = connections;
        this.vertx = (VertxInternal) vertx;
        this.options = options;
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

        /**
         * Whether a call with these arguments and tag may stand with identical calls next to it (see
         * {@link #repeatsAllowed}) as one entry. Such calls count once against {@code maxBatch}: a burst on one key
         * costs a run about what one of its calls does. By default no call may.
         */
        default boolean repeatable(String[] args, Object tag) {
            return false;
        }

        /**
         * Whether consecutive identical calls of this run (equal keys and arguments, and tags that are one object or
         * arrays of the same objects) may go as one entry: then
         * {@link #write} gets one call per entry, {@link #writeRepeats} says which entries stand for several, and
         * {@link #readRepeats} reads such an entry's reply. By default, when every call is {@link #repeatable}.
         */
        default boolean repeatsAllowed(String[][] args, Object[] tags) {
            for (int i = 0; i < args.length; i++) {
                if (!repeatable(args[i], tags[i])) {
                    return false;
                }
            }
            return true;
        }

        /**
         * Appends, after what {@link #write} wrote, what the script needs to know of the entries standing for several
         * calls: {@code repeats[e]} is the number of calls entry {@code e} stands for (1 for most). By default, pairs
         * (entry, from 1; its number of calls) for the entries of more than one call.
         */
        default void writeRepeats(Request request, int[] repeats) {
            for (int e = 0; e < repeats.length; e++) {
                if (repeats[e] > 1) {
                    request.arg(e + 1);
                    request.arg(repeats[e]);
                }
            }
        }

        /**
         * Reads the reply of an entry standing for {@code calls} calls, which starts at element {@code at} of the run's
         * reply and does not start with an error: fills {@code replies} with each call's, the integers the script
         * deciding the call alone would have replied, and returns how many elements the entry took.
         */
        default int readRepeats(Response run, int at, int calls, Object tag, String[] args, long[][] replies) {
            throw new UnsupportedOperationException("this format sends every call on its own");
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

    /**
     * Loads {@code library} into Redis ({@code FUNCTION LOAD}) and, once it is there, sends the calls of its scripts
     * as {@code FCALL}s of its functions instead of {@code EVALSHA}s. A library already loaded (by another instance of
     * the same version) is used as it is. Until then calls go as scripts: where Redis refuses the library for good
     * (before 7.0, a user without the right, a proxy that does not know the command) they stay scripts, and after any
     * other failure (Redis not up yet, a lost connection) a later call loads it again. The item says whether it is
     * in use.
     */
    public Uni<Boolean> loadFunctions(FunctionLibrary library) {
        return loadFunctions(library, null);
    }

    /**
     * Loads {@code library} as {@link #loadFunctions(FunctionLibrary)} does and, once loaded, deletes the libraries of
     * past versions recorded in {@code registry} and not loaded for a week (see {@link StaleLibraries}; null: none).
     */
    public Uni<Boolean> loadFunctions(FunctionLibrary library, String registry) {
        this.registry = registry;
        wanted = library;
        loading.set(true);
        return load(library);
    }

    /** Where loaded libraries are stamped (see {@link StaleLibraries}); null: nowhere. */
    private volatile String registry;

    /** Loads {@code library}; {@link #loading} is set by the caller and cleared here. */
    private Uni<Boolean> load(FunctionLibrary library) {
        return redis.send(io.vertx.mutiny.redis.client.Request.cmd(io.vertx.mutiny.redis.client.Command.FUNCTION)
                .arg("LOAD").arg(library.code()))
                .map(r -> true)
                .onFailure().recoverWithItem(t -> {
                    String m = String.valueOf(t.getMessage());
                    if (m.contains("'" + library.name() + "' already exists")) {
                        return true;
                    }
                    if (m.contains("unknown command") || m.contains("unknown subcommand")) {
                        refuse(library, m, true); // a Redis before 7: it never will
                    } else if (m.startsWith("ERR") || m.startsWith("NOPERM")) {
                        refuse(library, m, false); // an ACL an operator may change, an error that may pass
                    } else {
                        nextLoadNanos = System.nanoTime() + RELOAD_NANOS;
                        LOG.debugf("Could not load the rate-limit function library %s (%s); a later call tries again",
                                library.name(), m);
                    }
                    return false;
                })
                .invoke(loaded -> {
                    loading.set(false);
                    if (loaded && wanted == library) {
                        loadedNanos = System.nanoTime();
                        refusalBackoffNanos = 0;
                        String r = registry;
                        if (r != null) {
                            StaleLibraries.sweep(redis, r, library.name()).subscribe().with(ignored -> {
                            });
                        }
                        functions = library;
                        LOG.debugf("Rate-limit decisions call the Redis functions of library %s", library.name());
                    }
                });
    }

    /** After a failed load, the wait before a call tries again. */
    static final long RELOAD_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** A library lost within this time of being loaded is loaded again only after a wait, doubled each time. */
    static final long LOST_SOON_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final long MAX_RELOAD_BACKOFF_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** After Redis first refuses the library, the wait before it is offered again; doubled up to the next. */
    static final long REFUSED_RETRY_NANOS = TimeUnit.SECONDS.toNanos(10);
    static final long MAX_REFUSED_RETRY_NANOS = TimeUnit.MINUTES.toNanos(10);

    /**
     * Redis will not take or run the library: calls are scripts. {@code forGood} when it never will (a Redis without
     * functions, a library whose code fails); otherwise (an ACL without {@code FUNCTION}, an error reply that may pass)
     * the library is offered again after {@link #REFUSED_RETRY_NANOS}, doubled after each refusal up to
     * {@link #MAX_REFUSED_RETRY_NANOS}: an operator who grants the permission gets functions back without a restart.
     */
    private void refuse(FunctionLibrary library, String why, boolean forGood) {
        if (wanted != library) {
            return;
        }
        functions = null;
        if (forGood) {
            wanted = null;
            LOG.infof("Redis does not run the rate-limit function library (%s): decisions run as scripts (EVALSHA)",
                    why);
            return;
        }
        long backoff = refusalBackoffNanos == 0 ? REFUSED_RETRY_NANOS
                : Math.min(refusalBackoffNanos * 2, MAX_REFUSED_RETRY_NANOS);
        boolean first = refusalBackoffNanos == 0;
        refusalBackoffNanos = backoff;
        nextLoadNanos = System.nanoTime() + backoff;
        if (first) {
            LOG.infof("Redis refused the rate-limit function library (%s): decisions run as scripts (EVALSHA), and the "
                    + "library is offered again in %d s, then less and less often", why,
                    TimeUnit.NANOSECONDS.toSeconds(backoff));
        } else {
            LOG.debugf("Redis refused the rate-limit function library again (%s); next try in %d s", why,
                    TimeUnit.NANOSECONDS.toSeconds(backoff));
        }
    }

    /**
     * The function a call of {@code script} goes to now, or null: run it as a script. While the library is wanted but
     * not in use, a call past {@link #nextLoadNanos} loads it again.
     */
    String functionOf(LuaScript script) {
        if (functions != null) {
            return script.function();
        }
        FunctionLibrary library = wanted;
        if (library != null && script.function() != null && System.nanoTime() - nextLoadNanos >= 0
                && loading.compareAndSet(false, true)) {
            load(library).subscribe().with(loaded -> {
            }, failure -> loading.set(false));
        }
        return null;
    }

    /**
     * Whether a call that failed so is sent again with {@code EVAL} and the script's body, which Redis always runs: the
     * script is unknown to Redis ({@code NOSCRIPT}: a restart, a flush, a new node); or it was sent as a function
     * ({@code functionSent}) and Redis no longer has it (then the library is loaded again), or the user may not call
     * functions, or a function's code failed where the script's may not (then calls are scripts from now on), or Redis
     * refuses a function the script would have run in part (out of memory, a failed save, too few replicas: a
     * function that may write is refused whole, where a script is refused only its writes, so a denial still gets
     * its answer).
     */
    boolean resendAsEval(Throwable t, boolean functionSent) {
        String m = t.getMessage();
        if (m == null) {
            return false;
        }
        if (m.startsWith("NOSCRIPT")) {
            return true;
        }
        if (!functionSent) {
            return false;
        }
        if (m.startsWith("ERR Function not found")) {
            functionsLost();
            return true;
        }
        if (m.startsWith("NOPERM") || m.contains("user_function:")) {
            FunctionLibrary library = functions;
            if (library != null) {
                // a function's code failing is for good; a permission may be granted later
                refuse(library, m, !m.startsWith("NOPERM"));
            }
            return true;
        }
        return m.startsWith("OOM") || m.startsWith("MISCONF") || m.startsWith("NOREPLICAS");
    }

    /**
     * Redis no longer has the library (a restart without persistence, {@code FUNCTION FLUSH}): calls go as scripts and
     * the next one loads it again, at once, or after a wait doubled each time when it was lost again soon after it was
     * loaded (a proxy that sends the load to one server and the calls to another).
     */
    private void functionsLost() {
        FunctionLibrary library = functions;
        if (library == null) {
            return; // another call of the same loss came first
        }
        functions = null;
        long now = System.nanoTime();
        long backoff = now - loadedNanos < LOST_SOON_NANOS
                ? Math.min(Math.max(2 * loadBackoffNanos, RELOAD_NANOS), MAX_RELOAD_BACKOFF_NANOS)
                : 0;
        loadBackoffNanos = backoff;
        nextLoadNanos = now + backoff;
        LOG.debugf("Redis lost the rate-limit function library %s; loading it again%s", library.name(),
                backoff == 0 ? "" : " in " + TimeUnit.NANOSECONDS.toMillis(backoff) + " ms");
    }

    /** A failure that says the connection itself is gone (as opposed to an error reply from Redis). */
    static boolean isConnectionLost(Throwable t) {
        return BackendErrors.isConnectionLost(t);
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
    ScriptChannel channel() {
        ScriptChannel ch = affinity.get();
        if (ch != null) {
            return ch;
        }
        boolean eventLoop = Context.isOnEventLoopThread();
        ch = options == null ? pooledChannel(eventLoop) : loopChannel(eventLoop);
        if (eventLoop) {
            affinity.set(ch);
        }
        return ch;
    }

    /** A channel on the client's pool: one per event loop up to the limit; worker threads share them. */
    private ScriptChannel pooledChannel(boolean eventLoop) {
        synchronized (channels) {
            int made = channels.size();
            if (made < maxConnections && (eventLoop || made == 0)) {
                ScriptChannel ch = new ScriptChannel(this, made, client, false);
                channels.add(ch);
                return ch;
            }
            // past the limit, or a worker thread: share, spread by thread
            return channels.get((int) (Thread.currentThread().getId() % made));
        }
    }

    /**
     * The channel of the calling thread's event loop: its own loop on an event-loop thread; else the loop of its
     * context (a worker running a request has the request's), where the reply is read and its caller woken.
     */
    private ScriptChannel loopChannel(boolean eventLoop) {
        EventLoop loop = eventLoop ? currentEventLoop() : null;
        if (loop == null) {
            loop = vertx.getOrCreateContext().nettyEventLoop();
        }
        ScriptChannel ch = byLoop.get(loop);
        if (ch != null) {
            return ch;
        }
        synchronized (channels) {
            ch = byLoop.get(loop);
            if (ch == null) {
                int made = channels.size();
                if (made < maxConnections) {
                    ch = new ScriptChannel(this, made, clientOn(loop, made), true);
                    channels.add(ch);
                } else {
                    // the limit: this loop shares another's connection, its calls handed to that loop
                    ch = channels.get(byLoop.size() % made);
                }
                byLoop.put(loop, ch);
            }
            return ch;
        }
    }

    private EventLoop currentEventLoop() {
        ContextInternal context = ContextInternal.current();
        if (context != null && context.nettyEventLoop().inEventLoop()) {
            return context.nettyEventLoop();
        }
        for (EventExecutor e : vertx.nettyEventLoopGroup()) {
            if (e.inEventLoop()) {
                return (EventLoop) e;
            }
        }
        return null;
    }

    /**
     * A client whose connections live on {@code loop}: the client opens them on the context that is current when it
     * is built, so it is built with a context of that loop current (one of its own, not the caller's, which may be a
     * request's, or a deployment's that ends before the application does). Its pool and connections are named
     * {@code <pool>-ratelimit-<index>} in metrics: under the configured client's name, Micrometer would refuse the
     * gauges of every client after the first.
     */
    private Redis clientOn(EventLoop loop, int index) {
        String name = (options.getPoolName() == null ? "redis" : options.getPoolName()) + "-ratelimit-" + index;
        String metrics = options.getNetClientOptions().getMetricsName();
        // quarkus-micrometer reads "<prefix>|<client name>" (the configured client's is "redis|<name>")
        String prefix = metrics != null && metrics.contains("|") ? metrics.substring(0, metrics.indexOf('|')) : "redis";
        RedisOptions own = new RedisOptions(options).setPoolName(name)
                .setNetClientOptions(new NetClientOptions(options.getNetClientOptions()).setMetricsName(prefix + "|" + name));
        ContextInternal home = vertx.createEventLoopContext(loop, null, Thread.currentThread().getContextClassLoader());
        Redis[] built = new Redis[1];
        RuntimeException[] failed = new RuntimeException[1];
        home.dispatch(v -> {
            try {
                built[0] = Redis.createClient(vertx, own);
            } catch (RuntimeException e) {
                failed[0] = e;
            }
        });
        if (failed[0] != null) {
            throw failed[0];
        }
        return built[0];
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
