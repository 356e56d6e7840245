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
