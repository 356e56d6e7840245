package dev.ratelimit.deployment.lua;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.jse.JsePlatform;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.backend.redis.script.FunctionLibrary;
import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;

/**
 * Composes the script sources into the scripts Redis runs, and checks them.
 * <p>
 * Each algorithm lives in its own file, and names it ({@link Algorithm#scripts()}) after the file it shares
 * with others, if any (the three bucket algorithms share {@code bucket.lua}); shared files come before any
 * algorithm's own. A script deciding one call is the prelude, {@code kv-entry.lua}
 * (keys read and written at once), one or all algorithm files, the decide function and {@code entry.lua};
 * a script deciding a batch of calls is the prelude, {@code kv-batch.lua} (each key read and written once
 * per run), the algorithms, decide and {@code batch.lua}. {@code decide} carries every algorithm (for
 * requests mixing them); {@code decide/<algorithm>} carries one, so the common single-algorithm call
 * defines only what it uses; {@code decide-batch} and {@code decide-batch/<algorithm>} are their batch
 * counterparts. Redis runs a script's whole body on every call, so a script defining only what it uses
 * costs it less per run. Each composed script defines {@code main} last; {@link FunctionLibrary#script} makes it a
 * script Redis runs with {@code EVALSHA}, and the same text becomes a function of the library the extension loads
 * where Redis has functions.
 */
final class LuaScripts {

    static final String DIR = "dev/ratelimit/lua/";
    static final String PRELUDE = DIR + "prelude.lua";
    static final String DECIDE = DIR + "decide.lua";
    static final String ENTRY = DIR + "entry.lua";
    static final String BATCH = DIR + "batch.lua";
    static final String KV_ENTRY = DIR + "kv-entry.lua";
    static final String KV_BATCH = DIR + "kv-batch.lua";
    /** Frees a call's concurrency slots; a script of its own. */
    static final String RELEASE = DIR + "release.lua";

    private LuaScripts() {
    }

    /** Every source file the extension ships, in composition order. */
    static List<String> sourcePaths() {
        List<String> paths = new ArrayList<>();
        paths.add(PRELUDE);
        paths.add(KV_ENTRY);
        paths.add(KV_BATCH);
        paths.addAll(sharedAlgorithmPaths());
        for (Algorithm a : Algorithm.values()) {
            paths.add(algorithmPath(a));
        }
        paths.add(DECIDE);
        paths.add(ENTRY);
        paths.add(BATCH);
        paths.add(RELEASE);
        return paths;
    }

    /** The algorithm's own file: the last it names. */
    static String algorithmPath(Algorithm a) {
        List<String> own = a.scripts();
        return DIR + own.get(own.size() - 1);
    }

    /** The files several algorithms share, each once, in the order the algorithms first name them. */
    static Set<String> sharedAlgorithmPaths() {
        Set<String> shared = new LinkedHashSet<>();
        for (Algorithm a : Algorithm.values()) {
            List<String> files = a.scripts();
            for (String f : files.subList(0, files.size() - 1)) {
                shared.add(DIR + f);
            }
        }
        return shared;
    }

    /**
     * Checks every source (non-empty, parses as Lua) and adds one message per broken file to
     * {@code errors}, naming it.
     */
    static void check(Map<String, String> sources, List<String> errors) {
        for (Map.Entry<String, String> e : sources.entrySet()) {
            String problem = syntaxProblem(e.getKey(), e.getValue());
            if (problem != null) {
                errors.add("Lua script " + e.getKey() + " is broken: " + problem);
            }
        }
    }

    /** A description of what is wrong with this Lua text, or {@code null}. */
    static String syntaxProblem(String name, String body) {
        if (body == null || body.isBlank()) {
            return "it is empty";
        }
        try {
            LuaC.instance.compile(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)), name);
            return null;
        } catch (LuaError e) {
            return e.getMessage();
        } catch (Exception e) {
            return e.toString();
        }
    }

    /** The scripts to record: name to body. Sources must have passed {@link #check}. */
    static Map<String, String> compose(Map<String, String> sources) {
        Map<String, String> scripts = new TreeMap<>();
        String prelude = sources.get(PRELUDE);
        String decide = sources.get(DECIDE);
        String entry = String.join("\n", prelude, sources.get(KV_ENTRY));
        String batch = String.join("\n", prelude, sources.get(KV_BATCH));
        StringBuilder all = new StringBuilder();
        for (String shared : sharedAlgorithmPaths()) {
            all.append('\n').append(sources.get(shared));
        }
        for (Algorithm a : Algorithm.values()) {
            all.append('\n').append(sources.get(algorithmPath(a)));
            String alg = String.join("\n", a.scripts().stream().map(f -> sources.get(DIR + f)).toList());
            scripts.put(LuaScriptRegistry.DECIDE + "/" + a.configName(),
                    String.join("\n", entry, alg, decide, sources.get(ENTRY)));
            scripts.put(LuaScriptRegistry.BATCH + "/" + a.configName(),
                    String.join("\n", batch, alg, decide, sources.get(BATCH)));
        }
        all.append('\n').append(decide).append('\n');
        scripts.put(LuaScriptRegistry.DECIDE, entry + all + sources.get(ENTRY));
        scripts.put(LuaScriptRegistry.BATCH, batch + all + sources.get(BATCH));
        scripts.put(LuaScriptRegistry.RELEASE, sources.get(RELEASE));
        scripts.replaceAll((name, body) -> FunctionLibrary.script(body));
        // extra sources (not part of the extension's layout) become scripts of their own
        for (Map.Entry<String, String> e : sources.entrySet()) {
            if (!sourcePaths().contains(e.getKey())) {
                scripts.put(e.getKey(), e.getValue());
            }
        }
        return scripts;
    }

    /** SHA-1 of each body, lowercase hex: the name Redis gives a script. */
    static Map<String, String> shas(Map<String, String> scripts) {
        Map<String, String> shas = new LinkedHashMap<>();
        scripts.forEach((name, body) -> shas.put(name, LuaScript.sha1(body)));
        return shas;
    }

    static {
        // LuaC registers itself as the compiler of the standard globals
        JsePlatform.standardGlobals();
    }
}
