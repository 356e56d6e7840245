package dev.ratelimit.runtime.backend.redis.script;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The decide and release scripts as one Redis function library ({@code FUNCTION LOAD}, {@code FCALL}, Redis 7.0 and
 * later).
 * <p>
 * Redis runs a script's whole body on every {@code EVALSHA}: a decision pays for defining every function of the
 * prelude and the algorithms before it decides anything. A library's functions define all that once, on their first
 * call, and each call then runs only {@code main}. Both forms come from one text: the build composes each script as
 * definitions followed by {@code local function main()}, and {@link #script} makes that a script; here the same text
 * becomes the body of a function. Every value a call changes is reset when {@code main} starts (see
 * {@code prelude.lua}), so a function's call sees nothing of the one before, as a script's does not.
 * <p>
 * The library's name and its functions' names carry a hash of its code: two versions of the extension sharing one
 * Redis (a rolling update) each load and call their own, and never replace the other's.
 */
public final class FunctionLibrary {

    private static final String SCRIPT_HEAD = "local KEYS, ARGV = KEYS, ARGV\n";
    private static final String SCRIPT_TAIL = "\nreturn main()\n";
    private static final String FUNCTION_HEAD = "local KEYS, ARGV\n";
    private static final String FUNCTION_TAIL = "\nreturn function(keys, args)\n  KEYS, ARGV = keys, args\n  return main()\nend\n";

    /** The scripts that become functions, in order: registry name, and the role its function is named after. */
    private static final String[][] ROLES = { { LuaScriptRegistry.DECIDE, "decide" }, { LuaScriptRegistry.BATCH, "batch" },
            { LuaScriptRegistry.RELEASE, "release" } };

    private final String name;
    private final String code;
    /** Registry name of each script in the library to the name of its function. */
    private final Map<String, String> functions;

    private FunctionLibrary(String name, String code, Map<String, String> functions) {
        this.name = name;
        this.code = code;
        this.functions = Map.copyOf(functions);
    }

    /**
     * A composed script (definitions, then {@code local function main()}) as Redis runs it with {@code EVAL}: its
     * {@code KEYS} and {@code ARGV} are the globals Redis sets, and the body ends by calling {@code main}.
     */
    public static String script(String composed) {
        return SCRIPT_HEAD + composed + SCRIPT_TAIL;
    }

    /**
     * The library of the decide, batch and release scripts among {@code scripts} (registry name to body, each made by
     * {@link #script}); null when one of them is missing or was not made so (a registry of other scripts, in tests).
     */
    static FunctionLibrary of(Map<String, LuaScript> scripts) {
        StringBuilder builders = new StringBuilder();
        StringBuilder registrations = new StringBuilder();
        for (String[] scriptAndRole : ROLES) {
            String script = scriptAndRole[0];
            String role = scriptAndRole[1];
            LuaScript s = scripts.get(script);
            if (s == null || !s.body().startsWith(SCRIPT_HEAD) || !s.body().endsWith(SCRIPT_TAIL)) {
                return null;
            }
            String composed = s.body().substring(SCRIPT_HEAD.length(), s.body().length() - SCRIPT_TAIL.length());
            builders.append("local function build_").append(role).append("()\n").append(FUNCTION_HEAD).append(composed)
                    .append(FUNCTION_TAIL).append("end\n\n");
        }
        // named after everything it defines, so that a library of other code never shares a name with this one
        String hash = LuaScript.sha1(builders.toString()).substring(0, 16);
        Map<String, String> functions = new LinkedHashMap<>();
        for (String[] scriptAndRole : ROLES) {
            String function = "ratelimit_" + hash + "_" + scriptAndRole[1];
            functions.put(scriptAndRole[0], function);
            registrations.append("redis.register_function('").append(function).append("', lazily(build_")
                    .append(scriptAndRole[1]).append("))\n");
        }
        String name = "ratelimit_" + hash;
        String code = "#!lua name=" + name + "\n"
                + "-- quarkus-ratelimit: the decide and release scripts as functions (see FunctionLibrary.java)\n"
                + builders
                + "-- a function defines what it uses on its first call, when the Lua libraries are reachable (they are not\n"
                + "-- while a library loads)\n"
                + "local function lazily(build)\n"
                + "  local run\n"
                + "  return function(keys, args)\n"
                + "    if not run then run = build() end\n"
                + "    return run(keys, args)\n"
                + "  end\n"
                + "end\n"
                + registrations;
        return new FunctionLibrary(name, code, functions);
    }

    /** The library's name, as {@code FUNCTION LIST} shows it. */
    public String name() {
        return name;
    }

    /** The text {@code FUNCTION LOAD} takes. */
    public String code() {
        return code;
    }

    /**
     * The function that runs the script of this registry name, or null when the library has none: a script
     * specialised for one algorithm maps to the function of the script it narrows (a function defines its code once,
     * so the narrower one would save nothing).
     */
    String functionOf(String script) {
        String own = functions.get(script);
        if (own != null) {
            return own;
        }
        int slash = script.indexOf('/');
        return slash < 0 ? null : functions.get(script.substring(0, slash));
    }
}
