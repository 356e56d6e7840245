package dev.ratelimit.runtime.key;

import java.net.InetAddress;
import java.net.UnknownHostException;

import io.smallrye.common.net.Inet;

/**
 * The syntax of forwarding headers: one {@code X-Forwarded-For} element (a node: an address with an
 * optional port) and one RFC 7239 {@code Forwarded} element ({@code for=…;proto=…;by=…}). Anything
 * that is not an IP literal is rejected rather than guessed at, and nothing is ever looked up, so a
 * client-written value can neither become a key nor cost a DNS query.
 */
final class ForwardedSyntax {

    private ForwardedSyntax() {
    }

    /** An address and port ({@code -1} when absent or obfuscated) named by a forwarding header. */
    record Hop(InetAddress address, int port) {
    }

    /**
     * The index of the last {@code separator} before {@code end} outside a quoted string, or -1. Read
     * from the right, the closing quote comes first; a quote preceded by an odd number of backslashes
     * is escaped.
     */
    static int previousSeparator(String s, int end, char separator) {
        boolean quoted = false;
        for (int i = end - 1; i >= 0; i--) {
            char c = s.charAt(i);
            if (c == '"') {
                int backslashes = 0;
                while (quoted && i - 1 - backslashes >= 0 && s.charAt(i - 1 - backslashes) == '\\') {
                    backslashes++;
                }
                if (backslashes % 2 == 0) {
                    quoted = !quoted;
                }
            } else if (c == separator && !quoted) {
                return i;
            }
        }
        return -1;
    }

    /** The {@code for} of one RFC 7239 element ({@code for=…;proto=…;by=…}); {@code null} unless it has exactly one address. */
    static Hop forwardedElement(String element) {
        String value = null;
        int end = element.length();
        while (end >= 0) {
            int start = previousSeparator(element, end, ';');
            String pair = element.substring(start + 1, end);
            int eq = pair.indexOf('=');
            if (eq > 0 && trim(pair.substring(0, eq)).equalsIgnoreCase("for")) {
                if (value != null) {
                    return null;
                }
                value = trim(pair.substring(eq + 1));
            }
            end = start;
        }
        if (value == null) {
            return null;
        }
        if (value.length() >= 2 && value.charAt(0) == '"' && value.charAt(value.length() - 1) == '"') {
            value = unquote(value.substring(1, value.length() - 1));
            if (value == null) {
                return null;
            }
        }
        return node(value);
    }

    /** The content of a quoted string with its quoted pairs undone; {@code null} if a quote is left unescaped. */
    private static String unquote(String s) {
        if (s.indexOf('\\') < 0) {
            return s.indexOf('"') < 0 ? s : null;
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                c = s.charAt(++i);
            } else if (c == '"' || c == '\\') {
                return null;
            }
            sb.append(c);
        }
        return sb.toString();
    }

    /**
     * An address with an optional port: {@code 192.0.2.1}, {@code 192.0.2.1:4711}, {@code 2001:db8::1},
     * {@code [2001:db8::1]}, {@code [2001:db8::1]:4711}; the port may be an RFC 7239 obfuscated
     * {@code _port}. Anything else (host names, {@code unknown}, {@code _hidden}, zones) is {@code null}.
     * Only literals are parsed, never looked up.
     */
    static Hop node(String s) {
        String host;
        String port = null;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) {
                return null;
            }
            host = s.substring(1, close);
            if (close + 1 < s.length()) {
                if (s.charAt(close + 1) != ':') {
                    return null;
                }
                port = s.substring(close + 2);
            }
            if (host.indexOf(':') < 0) {
                return null;
            }
        } else {
            int colon = s.indexOf(':');
            if (colon >= 0 && s.indexOf(':', colon + 1) < 0) {
                host = s.substring(0, colon);
                port = s.substring(colon + 1);
            } else {
                host = s;
            }
        }
        int p = port == null ? -1 : port(port);
        if (p == -2) {
            return null;
        }
        InetAddress address = literal(host);
        return address == null ? null : new Hop(address, p);
    }

    /** A port number, -1 for an obfuscated port, -2 if malformed. */
    private static int port(String s) {
        if (s.length() > 1 && s.charAt(0) == '_') {
            for (int i = 1; i < s.length(); i++) {
                char c = s.charAt(i);
                if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
                        || c == '-')) {
                    return -2;
                }
            }
            return -1;
        }
        if (s.isEmpty() || s.length() > 5) {
            return -2;
        }
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -2;
            }
            n = n * 10 + (c - '0');
        }
        return n <= 65535 ? n : -2;
    }

    /** An IPv4 or IPv6 literal (IPv4-mapped IPv6 as IPv4), or {@code null}; ASCII digits and hex only, no zone. */
    static InetAddress literal(String s) {
        if (s.isEmpty() || s.length() > 45) {
            return null;
        }
        boolean v6 = s.indexOf(':') >= 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c >= '0' && c <= '9' || c == '.' || v6 && (c == ':' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F');
            if (!ok) {
                return null;
            }
        }
        byte[] bytes = v6 ? Inet.parseInet6AddressToBytes(s) : Inet.parseInet4AddressToBytes(s);
        if (bytes == null) {
            return null;
        }
        try {
            // from bytes, never a lookup; an IPv4-mapped address comes back as the IPv4 address
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** Without the optional whitespace (SP, HTAB) HTTP allows around list elements and parameters. */
    static String trim(String s) {
        int b = 0;
        int e = s.length();
        while (b < e && (s.charAt(b) == ' ' || s.charAt(b) == '\t')) {
            b++;
        }
        while (e > b && (s.charAt(e - 1) == ' ' || s.charAt(e - 1) == '\t')) {
            e--;
        }
        return s.substring(b, e);
    }
}
