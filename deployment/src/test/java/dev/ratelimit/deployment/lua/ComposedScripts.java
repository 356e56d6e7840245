package dev.ratelimit.deployment.lua;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * The scripts exactly as the build composes them, for tests that run them on Redis without starting Quarkus
 * (property tests make thousands of calls, and jqwik runs outside Quarkus's JUnit extension).
 */
public final class ComposedScripts {

    private ComposedScripts() {
    }

    /** Script name ({@code decide}, {@code decide/<algorithm>}, {@code decide-batch}, ...) to body. */
    public static Map<String, String> all() {
        Map<String, String> sources = new TreeMap<>();
        ClassLoader cl = ComposedScripts.class.getClassLoader();
        for (String path : LuaScripts.sourcePaths()) {
            try (InputStream in = cl.getResourceAsStream(path)) {
                if (in == null) {
                    throw new IllegalStateException(path + " is missing from the class path");
                }
                sources.put(path, new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return LuaScripts.compose(sources);
    }
}
