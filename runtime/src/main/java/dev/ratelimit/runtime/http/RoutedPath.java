package dev.ratelimit.runtime.http;

import java.nio.charset.StandardCharsets;

import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ServerRequestContext;

import dev.ratelimit.runtime.policy.PathPattern;

/**
 * The path Quarkus REST routed a request on, in the form {@link PathPattern}s are matched against:
 * the full path (root path and REST path included), without query and matrix parameters,
 * percent-decoded. Every spelling of a path that reaches a resource method therefore meets the path
 * policies of the path routing matched ({@code /api;v=1/login}, {@code /api/logi%6E} and
 * {@code //api/./login} are all {@code /api/login}).
 * <p>
 * Quarkus REST routes on Vert.x's normalized path (unreserved characters decoded, dot and empty
 * segments resolved, other percent-encodings kept), except that a path carrying {@code ;} is first
 * rebuilt from its segments, each stripped of its matrix parameters and decoded. Either way it
 * compares the resulting string with its templates as an encoded path, and decodes path parameters
 * from it. So this class takes that string from the request context, rather than normalizing the
 * request line again, and decodes it as routing reads it: behind matrix parameters that is a second
 * decoding ({@code /a%2520b;x=1} reaches {@code @Path("/a b")} and is {@code /a b} here too). An
 * encoded slash ({@code %2F}) still encoded in that string was no separator for routing: it stays
 * {@code %2F}, inside its segment.
 */
final class RoutedPath {

    private RoutedPath() {
    }

    /** The routed path of the request being filtered. */
    static String of(ServerRequestContext request) {
        // the only implementation Quarkus REST hands to filters: it holds the path routing used
        String routed = ((ResteasyReactiveRequestContext) request).getPath();
        return routed.indexOf('%') < 0 ? routed : decode(routed);
    }

    /**
     * Percent-decodes a path as UTF-8 (malformed sequences become U+FFFD, a {@code %} not followed by
     * two hex digits stays as is), except {@code %2F}, kept (upper case) inside its segment.
     */
    static String decode(String path) {
        int len = path.length();
        StringBuilder out = new StringBuilder(len);
        byte[] run = new byte[len / 3];
        int i = 0;
        while (i < len) {
            int n = 0;
            int b;
            while ((b = escaped(path, i)) >= 0 && b != '/') {
                run[n++] = (byte) b;
                i += 3;
            }
            if (n > 0) {
                // a run of escapes at once: one character may take several bytes
                out.append(new String(run, 0, n, StandardCharsets.UTF_8));
            } else if (b == '/') {
                out.append("%2F");
                i += 3;
            } else {
                out.append(path.charAt(i++));
            }
        }
        return out.toString();
    }

    /** The byte {@code %XY} at {@code i} stands for, or -1 when there is no such escape there. */
    private static int escaped(String path, int i) {
        if (i + 2 >= path.length() || path.charAt(i) != '%') {
            return -1;
        }
        int hi = hex(path.charAt(i + 1));
        int lo = hex(path.charAt(i + 2));
        return hi < 0 || lo < 0 ? -1 : hi << 4 | lo;
    }

    /** ASCII hex digits only: {@link Character#digit} would also take other scripts' digits. */
    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }
}
