package dev.ratelimit.runtime.policy;

/**
 * The path syntax of Quarkus HTTP permissions: an exact path ({@code /api/orders}), or a prefix
 * ending in {@code /*} that matches the prefix itself and every sub-path ({@code /public/*}), or
 * {@code /*} for everything.
 */
public final class PathPattern {

    private PathPattern() {
    }

    /** What is wrong with {@code pattern}, or {@code null} when it parses. */
    public static String problem(String pattern) {
        if (pattern == null || pattern.isEmpty() || pattern.charAt(0) != '/') {
            return "a path must start with '/', e.g. /api/orders or /public/*";
        }
        int star = pattern.indexOf('*');
        if (star >= 0 && (star != pattern.length() - 1 || pattern.charAt(star - 1) != '/')) {
            return "'*' is only allowed as the last segment, as in /public/*";
        }
        if (pattern.contains("//")) {
            return "empty path segment '//'";
        }
        return null;
    }

    /** Whether {@code path} (the {@link RoutedPath} of a request) matches {@code pattern}. */
    public static boolean matches(String pattern, String path) {
        if (pattern.endsWith("/*")) {
            String prefix = pattern.substring(0, pattern.length() - 2);
            if (prefix.isEmpty()) {
                return true;
            }
            return path.startsWith(prefix) && (path.length() == prefix.length() || path.charAt(prefix.length()) == '/');
        }
        return pattern.equals(path)
                || (path.length() == pattern.length() + 1 && path.endsWith("/") && path.startsWith(pattern));
    }
}
