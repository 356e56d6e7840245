package dev.ratelimit.runtime.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Decoding a routed path for path policies: UTF-8 percent-escapes in runs, an encoded slash kept inside its segment,
 * escapes that are not escapes left as they are.
 */
class RoutedPathTest {

    @Test
    void decodesEscapesAsUtf8() {
        assertEquals("/api/login", RoutedPath.decode("/api/logi%6E"));
        assertEquals("/api/login", RoutedPath.decode("/api/logi%6e"));
        assertEquals("/files/a b", RoutedPath.decode("/files/a%20b"));
        assertEquals("/files/caf\u00e9", RoutedPath.decode("/files/caf%C3%A9"));
        assertEquals("/files/\uD83D\uDD11", RoutedPath.decode("/files/%F0%9F%94%91"), "four bytes, one character");
        assertEquals("/files/;x", RoutedPath.decode("/files/%3Bx"));
        assertEquals("/files/a%", RoutedPath.decode("/files/a%25"));
        assertEquals("/files/a%20b", RoutedPath.decode("/files/a%2520b"), "one level of decoding per call");
    }

    @Test
    void keepsAnEncodedSlashInsideItsSegment() {
        assertEquals("/files/a%2Fb", RoutedPath.decode("/files/a%2Fb"));
        assertEquals("/files/a%2Fb", RoutedPath.decode("/files/a%2fb"));
        assertEquals("/files/caf\u00e9%2F\u00e9", RoutedPath.decode("/files/caf%C3%A9%2F%C3%A9"));
    }

    @Test
    void leavesWhatIsNoEscapeAsItIs() {
        assertEquals("/files/a%zzb", RoutedPath.decode("/files/a%zzb"));
        assertEquals("/files/a%", RoutedPath.decode("/files/a%"));
        assertEquals("/files/a%4", RoutedPath.decode("/files/a%4"));
        assertEquals("/files/%A", RoutedPath.decode("/files/%%41"), "a lone % before an escape");
        assertEquals("/files/\uFFFD", RoutedPath.decode("/files/%E9"), "not UTF-8: the replacement character");
        assertEquals("/files/\u0663\u0663", RoutedPath.decode("/files/\u0663\u0663"), "only ASCII hex digits");
        assertEquals("/files/%\u0663\u0663", RoutedPath.decode("/files/%\u0663\u0663"));
    }
}
