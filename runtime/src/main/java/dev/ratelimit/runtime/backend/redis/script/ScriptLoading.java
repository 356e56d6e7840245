package dev.ratelimit.runtime.backend.redis.script;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jboss.logging.Logger;

import io.smallrye.mutiny.Uni;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;

/**
 * How the scripts reach Redis and stay there: loaded ahead of the first decisions ({@code SCRIPT LOAD}), and, where
 * Redis has functions (7.0 and later), as one function library called with {@code FCALL} (see
 * {@link FunctionLibrary}), loaded again when Redis loses it and given up where Redis refuses it. The transport asks,
 * for every call, which function to call ({@link #functionOf}) and, for every failed call, whether to send it again
 * as {@code EVAL} with the script's body ({@link #resendAsEval}); it knows nothing else of scripts.
 */
public final class ScriptLoading {

    private static final Logger LOG = Logger.getLogger(ScriptLoading.class);

    private final Commands commands;
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

    public ScriptLoading(Commands commands) {
        this.commands = commands;
    }

    /**
     * Loads the scripts so the first decisions need no {@code EVAL}. Best effort: a failure only
     * means the first call pays the fallback.
     */
    public Uni<Void> preload(Iterable<LuaScript> scripts) {
        Uni<Void> chain = Uni.createFrom().voidItem();
        for (LuaScript s : scripts) {
            chain = chain.chain(() -> commands.send(Request
                    .cmd(Command.SCRIPT).arg("LOAD").arg(s.body()))
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
        return commands.send(Request.cmd(Command.FUNCTION)
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
                            StaleLibraries.sweep(commands, r, library.name()).subscribe().with(ignored -> {
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
    public String functionOf(LuaScript script) {
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
    public boolean resendAsEval(Throwable t, boolean functionSent) {
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

}
