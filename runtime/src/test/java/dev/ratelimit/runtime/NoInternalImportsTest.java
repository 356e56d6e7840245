package dev.ratelimit.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * The runtime builds on the public APIs of Vert.x and Quarkus: an {@code impl} package or an {@code *Internal} type may
 * move in any release (Vert.x 5 moved them). The imports of such types still left are listed here, file by file, and
 * the list may only shrink: a new one fails this test, and so does one that was removed but is still listed.
 */
class NoInternalImportsTest {

    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?((?:io\\.vertx|io\\.quarkus)[\\w.]*)\\s*;",
            Pattern.MULTILINE);

    /** What is left to move onto public APIs (the hand-built Redis transport and the timeout lanes). */
    private static final Map<String, TreeSet<String>> LEFT = Map.of(
            "backend/redis/transport/LuaScriptExecutor.java", new TreeSet<>(java.util.List.of("io.vertx.core.impl.ContextInternal",
                    "io.vertx.core.impl.VertxInternal")),
            "backend/redis/transport/ScriptChannel.java", new TreeSet<>(java.util.List.of("io.vertx.redis.client.impl.PooledRedisConnection")),
            "backend/redis/transport/ReplyValues.java", new TreeSet<>(java.util.List.of("io.vertx.redis.client.impl.types.NumberType")),
            "resilience/CallTimeouts.java", new TreeSet<>(java.util.List.of("io.vertx.core.impl.ContextInternal")));

    @Test
    void noImportOfAnInternalTypeBeyondTheOnesLeftToMove() throws IOException {
        Path root = Path.of("src/main/java/dev/ratelimit/runtime");
        Map<String, TreeSet<String>> found = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m = IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    String type = m.group(1);
                    if (type.contains(".impl.") || type.endsWith("Internal")) {
                        found.computeIfAbsent(root.relativize(f).toString().replace('\\', '/'), k -> new TreeSet<>())
                                .add(type);
                    }
                }
            }
        }
        assertEquals(new TreeMap<>(LEFT), found);
    }
}
