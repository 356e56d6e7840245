package dev.ratelimit.runtime.redis;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.jboss.logging.Logger;

import dev.ratelimit.runtime.resilience.BackendErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * Runs a recorded script on the Quarkus Redis client without blocking: {@code EVALSHA}, and {@code EVAL} with the
 * body when the server does not know the script ({@code NOSCRIPT}: a restart, a flush, a new cluster node).
 * <p>
 * Calls are pipelined on a few connections it keeps ({@link ScriptChannel}), not borrowed from the client's pool
 * per command: a pool caps the calls in flight and refuses the rest, and Redis would pay two system calls per
 * command. A caller on an event loop keeps the channel it was given first, and its reply completes on its own
 * thread; but the client's pool opens every connection on the one event loop it was created on, so a caller on
 * another loop hands each send to that loop and each reply comes back to it as a task (two thread hand-offs per
 * run, measured on the HTTP path in the performance page). Calls made on one event loop in one turn while others
 * wait for Redis go as one run of the batch script
 * ({@link BatchRun}): Redis, single-threaded and the bound under load, then parses one command and writes one reply
 * for many decisions. A connection that closes, fails or stalls is replaced on the next call. The architecture page
 * tells the whole path.
 */
public class LuaScriptExecutor {

    static final Logger LOG = Logger.getLogger(LuaScriptExecutor.class);

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

    final io.vertx.mutiny.redis.client.Redis redis;
    final Redis client;
    /** Most calls in one run of a batch script; 1 turns batching off. */
    final int maxBatch;
    private final ScriptChannel[] channels;
    private int created;
    /** Event-loop threads keep the channel they were given. */
    private final ThreadLocal<ScriptChannel> affinity = new ThreadLocal<>();

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
        this.channels = new ScriptChannel[connections];
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
        synchronized (channels) {
            if (created < channels.length && (eventLoop || created == 0)) {
                ch = new ScriptChannel(this, created);
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

}
