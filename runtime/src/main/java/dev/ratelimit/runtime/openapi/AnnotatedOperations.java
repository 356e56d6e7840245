package dev.ratelimit.runtime.openapi;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The REST operations limited by {@code @RateLimit}, as the build found them: by HTTP method and path template in the
 * form the OpenAPI document spells it, the policy names of their annotations. Recorded at static init, read once when
 * the document is prepared.
 */
public final class AnnotatedOperations {

    private static final Map<String, List<String>> OPERATIONS = new ConcurrentHashMap<>();

    private AnnotatedOperations() {
    }

    /** Forgets the operations of a previous (dev-mode) build. */
    public static void clear() {
        OPERATIONS.clear();
    }

    /** Records the policies of an operation. */
    public static void add(String method, String path, List<String> policies) {
        OPERATIONS.put(key(method, path), List.copyOf(policies));
    }

    /** The policies the annotations of an operation name, empty when it has none. */
    public static List<String> policies(String method, String path) {
        return OPERATIONS.getOrDefault(key(method, path), List.of());
    }

    private static String key(String method, String path) {
        return method + ' ' + path;
    }
}
