package dev.ratelimit.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The runtime builds on the public APIs of Vert.x and Quarkus only: an {@code impl} package or an {@code *Internal} type
 * may move in any release (Vert.x 5 moved them). No source of the runtime imports one, or names one in full.
 */
class NoInternalImportsTest {

    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?((?:io\\.vertx|io\\.quarkus)[\\w.]*)\\s*;",
            Pattern.MULTILINE);
    private static final Pattern NAMED = Pattern.compile("\\b((?:io\\.vertx|io\\.quarkus)(?:\\.\\w+)*\\.(?:impl\\.\\w+|\\w+Internal\\b))");

    @Test
    void noSourceImportsOrNamesAnInternalType() throws IOException {
        Path root = Path.of("src/main/java/dev/ratelimit/runtime");
        Map<String, TreeSet<String>> found = new TreeMap<>();
        int read = 0;
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                read++;
                String src = Files.readString(f);
                String name = root.relativize(f).toString().replace('\\', '/');
                Matcher m = IMPORT.matcher(src);
                while (m.find()) {
                    String type = m.group(1);
                    if (type.contains(".impl.") || type.endsWith("Internal")) {
                        found.computeIfAbsent(name, k -> new TreeSet<>()).add(type);
                    }
                }
                Matcher n = NAMED.matcher(src);
                while (n.find()) {
                    found.computeIfAbsent(name, k -> new TreeSet<>()).add(n.group(1));
                }
            }
        }
        assertTrue(read > 50, "sanity: the sources were read (" + read + " files)");
        assertEquals(Map.of(), found, "internal Vert.x or Quarkus types used by the runtime");
    }
}
