package dev.ratelimit.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/** The runtime's packages import one another in one direction only, as the architecture page draws them. */
class PackageLoopsTest {

    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?(dev\\.ratelimit[\\w.]*?)\\.[A-Z]",
            Pattern.MULTILINE);

    @Test
    void noPackageImportsAnotherInALoop() throws IOException {
        Map<String, Set<String>> imports = imports(Path.of("src/main/java"));
        assertTrue(imports.keySet().containsAll(List.of("dev.ratelimit.runtime.http", "dev.ratelimit.runtime.backend.redis")),
                "sanity: the sources were read: " + imports.keySet());
        List<String> loops = new ArrayList<>();
        for (String from : imports.keySet()) {
            for (String to : imports.get(from)) {
                List<String> back = path(imports, to, from);
                if (back != null) {
                    loops.add(from + " -> " + String.join(" -> ", back));
                }
            }
        }
        assertEquals(List.of(), loops);
    }

    /** The HTTP filter, the OpenAPI filter and the Dev UI service sit above the wiring: they use what it builds. */
    @Test
    void theSubPackagesDoNotImportTheWiringExceptItsEdges() throws IOException {
        Map<String, Set<String>> imports = imports(Path.of("src/main/java"));
        // the edges facing the application and the developer read its configuration or use the limiter it builds;
        // nothing of the wiring imports them
        Set<String> edges = Set.of("dev.ratelimit.runtime.http", "dev.ratelimit.runtime.openapi",
                "dev.ratelimit.runtime.devui");
        imports.forEach((from, to) -> {
            if (from.startsWith("dev.ratelimit.runtime.") && !edges.contains(from)) {
                assertTrue(!to.contains("dev.ratelimit.runtime"), from + " imports the wiring: " + to);
            }
        });
    }

    /**
     * The package map of the architecture page, as the packages each one may import (besides the public API and
     * itself): a new edge is a decision, made here and drawn there. The transport knows nothing of policies or
     * algorithms, the algorithms nothing of the runtime, the backends nothing of the limiter, the configuration or
     * the edges facing the application; only the wiring sees everything.
     */
    private static final Map<String, Set<String>> MAY_IMPORT = Map.ofEntries(
            Map.entry("vertx", Set.of()),
            Map.entry("algorithm", Set.of()),
            Map.entry("key", Set.of()),
            Map.entry("policy", Set.of("algorithm", "key")),
            Map.entry("config", Set.of("algorithm", "key", "policy")),
            Map.entry("metrics", Set.of("policy")),
            Map.entry("backend", Set.of("algorithm", "policy")),
            Map.entry("backend.local", Set.of("algorithm", "backend", "policy")),
            Map.entry("backend.redis.script", Set.of("algorithm")),
            Map.entry("backend.redis.transport", Set.of("backend.redis.script", "vertx")),
            Map.entry("backend.redis", Set.of("algorithm", "backend", "backend.redis.script", "backend.redis.transport",
                    "config", "policy")),
            Map.entry("resilience", Set.of("algorithm", "backend", "backend.local", "metrics", "policy", "vertx")),
            Map.entry("tracing", Set.of("resilience")),
            Map.entry("leasing", Set.of("backend", "backend.local", "policy")),
            Map.entry("core", Set.of("algorithm", "backend", "backend.local", "config", "leasing", "metrics", "policy",
                    "resilience", "tracing")),
            Map.entry("http", Set.of("config", "core", "key", "metrics", "policy")),
            Map.entry("interceptor", Set.of("http", "policy")),
            Map.entry("openapi", Set.of("config", "http", "policy")),
            Map.entry("health", Set.of("backend", "config", "core", "resilience")),
            Map.entry("admin", Set.of("config", "core", "key", "policy")),
            Map.entry("devui", Set.of("", "backend", "config", "core", "key", "leasing", "metrics", "policy",
                    "resilience")));

    @Test
    void eachPackageImportsOnlyWhatThePackageMapDraws() throws IOException {
        Map<String, Set<String>> imports = imports(Path.of("src/main/java"));
        String runtime = "dev.ratelimit.runtime";
        List<String> steps = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : imports.entrySet()) {
            if (!e.getKey().startsWith(runtime + ".")) {
                continue;
            }
            String from = e.getKey().substring(runtime.length() + 1);
            Set<String> allowed = MAY_IMPORT.get(from);
            assertTrue(allowed != null, "a package the map does not draw: " + from);
            for (String to : e.getValue()) {
                if (!to.startsWith(runtime)) {
                    continue; // the public API
                }
                String target = to.equals(runtime) ? "" : to.substring(runtime.length() + 1);
                if (!allowed.contains(target)) {
                    steps.add(from + " -> " + (target.isEmpty() ? "(the wiring)" : target));
                }
            }
        }
        assertEquals(List.of(), steps, "imports the package map does not draw");
    }

    private static Map<String, Set<String>> imports(Path sources) throws IOException {
        Map<String, Set<String>> imports = new TreeMap<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String src = Files.readString(f);
                Matcher p = PACKAGE.matcher(src);
                if (!p.find()) {
                    continue;
                }
                Set<String> to = imports.computeIfAbsent(p.group(1), k -> new TreeSet<>());
                Matcher i = IMPORT.matcher(src);
                while (i.find()) {
                    if (!i.group(1).equals(p.group(1))) {
                        to.add(i.group(1));
                    }
                }
            }
        }
        return imports;
    }

    /** A path of imports from {@code from} to {@code to}, or null. */
    private static List<String> path(Map<String, Set<String>> imports, String from, String to) {
        Map<String, String> reachedFrom = new TreeMap<>();
        Deque<String> todo = new ArrayDeque<>(List.of(from));
        reachedFrom.put(from, null);
        while (!todo.isEmpty()) {
            String at = todo.poll();
            if (at.equals(to)) {
                List<String> path = new ArrayList<>();
                for (String s = at; s != null; s = reachedFrom.get(s)) {
                    path.add(0, s);
                }
                return path;
            }
            for (String next : imports.getOrDefault(at, Set.of())) {
                if (!reachedFrom.containsKey(next)) {
                    reachedFrom.put(next, at);
                    todo.add(next);
                }
            }
        }
        return null;
    }
}
