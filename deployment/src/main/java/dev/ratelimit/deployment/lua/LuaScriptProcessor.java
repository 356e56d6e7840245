package dev.ratelimit.deployment.lua;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import jakarta.inject.Singleton;

import dev.ratelimit.runtime.RateLimitRecorder;
import dev.ratelimit.runtime.backend.redis.script.FunctionLibrary;
import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;
import io.quarkus.arc.deployment.SyntheticBeanBuildItem;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.ExecutionTime;
import io.quarkus.deployment.annotations.Record;
import io.quarkus.deployment.builditem.HotDeploymentWatchedFileBuildItem;

/** The build steps of the Lua scripts: read, checked, composed and hashed at build time, recorded for run time. */
class LuaScriptProcessor {

    /** Reads the extension's Lua sources from the runtime module (they are never read at run time). */
    @BuildStep
    void readScripts(BuildProducer<LuaScriptSourceBuildItem> sources, BuildProducer<HotDeploymentWatchedFileBuildItem> watched) {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        for (String path : LuaScripts.sourcePaths()) {
            try (InputStream in = cl.getResourceAsStream(path)) {
                if (in == null) {
                    throw new IllegalStateException("Lua script " + path + " is missing from the quarkus-ratelimit jar");
                }
                sources.produce(new LuaScriptSourceBuildItem(path, new String(in.readAllBytes(), StandardCharsets.UTF_8)));
            } catch (IOException e) {
                throw new IllegalStateException("Cannot read Lua script " + path, e);
            }
            watched.produce(new HotDeploymentWatchedFileBuildItem(path));
        }
    }

    /** Checks every source and composes and hashes the scripts; all broken files are reported together. */
    @BuildStep
    LuaScriptRegistryBuildItem composeScripts(List<LuaScriptSourceBuildItem> sourceItems) {
        Map<String, String> sources = new TreeMap<>();
        for (LuaScriptSourceBuildItem s : sourceItems) {
            sources.put(s.path(), s.body());
        }
        List<String> errors = new ArrayList<>();
        LuaScripts.check(sources, errors);
        if (!errors.isEmpty()) {
            throw new IllegalStateException("Invalid rate-limit Lua scripts:\n  - " + String.join("\n  - ", errors));
        }
        Map<String, String> scripts = LuaScripts.compose(sources);
        for (Map.Entry<String, String> e : scripts.entrySet()) {
            // composition must parse too (a file may be valid alone but not joined with the others)
            String problem = LuaScripts.syntaxProblem(e.getKey(), e.getValue());
            if (problem != null) {
                errors.add("Lua script " + e.getKey() + " (composed) is broken: " + problem);
            }
        }
        Map<String, String> shas = LuaScripts.shas(scripts);
        // and so must the function library the runtime makes of them (its first line, the library's name, is not Lua)
        Map<String, LuaScript> recorded = new TreeMap<>();
        scripts.forEach((name, body) -> recorded.put(name, new LuaScript(name, body, shas.get(name))));
        FunctionLibrary library = new LuaScriptRegistry(recorded).library();
        if (library != null) {
            String code = library.code();
            String problem = LuaScripts.syntaxProblem(library.name(), code.substring(code.indexOf('\n') + 1));
            if (problem != null) {
                errors.add("Lua function library " + library.name() + " is broken: " + problem);
            }
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException("Invalid rate-limit Lua scripts:\n  - " + String.join("\n  - ", errors));
        }
        return new LuaScriptRegistryBuildItem(scripts, shas);
    }

    @BuildStep
    @Record(ExecutionTime.STATIC_INIT)
    SyntheticBeanBuildItem scriptRegistry(LuaScriptRegistryBuildItem registry, RateLimitRecorder recorder) {
        return SyntheticBeanBuildItem.configure(LuaScriptRegistry.class)
                .scope(Singleton.class)
                .supplier(recorder.scripts(pieces(registry.bodies()), new TreeMap<>(registry.shas())))
                .unremovable()
                .done();
    }

    /** Each body in the pieces the recorder takes ({@link RateLimitRecorder#pieces}). */
    static Map<String, List<String>> pieces(Map<String, String> bodies) {
        Map<String, List<String>> pieces = new TreeMap<>();
        bodies.forEach((name, body) -> pieces.put(name, RateLimitRecorder.pieces(body)));
        return pieces;
    }
}
