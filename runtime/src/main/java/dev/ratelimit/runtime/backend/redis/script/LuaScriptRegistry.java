package dev.ratelimit.runtime.backend.redis.script;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

import dev.ratelimit.runtime.algorithm.Algorithm;

/**
 * The scripts the build read, checked and hashed. Nothing is loaded from resources at run time.
 */
public final class LuaScriptRegistry {

    /** The script deciding any mix of algorithms. */
    public static final String DECIDE = "decide";

    /** The script deciding a batch of independent calls (any mix of algorithms) in one run. */
    public static final String BATCH = "decide-batch";

    /** The script freeing the concurrency slots of one call. */
    public static final String RELEASE = "release";

    private final Map<String, LuaScript> scripts;
    private final FunctionLibrary library;

    /** The scripts, and the function library made of them when they are the extension's (see {@link #library}). */
    public LuaScriptRegistry(Map<String, LuaScript> scripts) {
        FunctionLibrary lib = FunctionLibrary.of(scripts);
        Map<String, LuaScript> named = new TreeMap<>();
        scripts.forEach((name, s) -> {
            String function = lib == null ? null : lib.functionOf(name);
            named.put(name, function == null ? s : new LuaScript(s.name(), s.body(), s.sha(), function));
        });
        this.scripts = Map.copyOf(named);
        this.library = lib;
    }

    /**
     * The decide and release scripts as one function library, their scripts naming its functions; null when these
     * scripts are not the extension's composed ones.
     */
    public FunctionLibrary library() {
        return library;
    }

    /** The script of that name; fails loudly, since a missing name is a bug of the extension. */
    public LuaScript get(String name) {
        LuaScript s = scripts.get(name);
        if (s == null) {
            throw new IllegalStateException("No Lua script named '" + name + "' was recorded at build time; known: "
                    + new TreeMap<>(scripts).keySet());
        }
        return s;
    }

    /** The script specialised for one algorithm (smaller, used when every policy of a call shares it). */
    public LuaScript forAlgorithm(Algorithm algorithm) {
        return get(DECIDE + "/" + algorithm.configName());
    }

    /**
     * The batch script specialised for one algorithm, for runs whose calls all use it: a run defines
     * only the functions it can call, and Redis runs the script's body on every call.
     */
    public LuaScript batchForAlgorithm(Algorithm algorithm) {
        return get(BATCH + "/" + algorithm.configName());
    }

    /** Every script. */
    public Collection<LuaScript> all() {
        return scripts.values();
    }
}
