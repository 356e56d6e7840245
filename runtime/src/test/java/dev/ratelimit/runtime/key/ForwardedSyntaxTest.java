package dev.ratelimit.runtime.key;

import static dev.ratelimit.runtime.key.ClientAddressTest.ip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * What counts as an address in a forwarding header, and what does not.
 */
class ForwardedSyntaxTest {

    @Test
    void addressesWithAndWithoutPorts() {
        assertEquals(new ForwardedSyntax.Hop(ip("192.0.2.1"), -1), ForwardedSyntax.node("192.0.2.1"));
        assertEquals(new ForwardedSyntax.Hop(ip("192.0.2.1"), 4711), ForwardedSyntax.node("192.0.2.1:4711"));
        assertEquals(new ForwardedSyntax.Hop(ip("2001:db8::1"), -1), ForwardedSyntax.node("2001:db8::1"));
        assertEquals(new ForwardedSyntax.Hop(ip("2001:db8::1"), -1), ForwardedSyntax.node("[2001:db8::1]"));
        assertEquals(new ForwardedSyntax.Hop(ip("2001:db8::1"), 0), ForwardedSyntax.node("[2001:DB8:0:0::1]:0"));
        assertEquals(new ForwardedSyntax.Hop(ip("2001:db8::1"), -1), ForwardedSyntax.node("[2001:db8::1]:_p.o-r_t"));
        assertEquals(new ForwardedSyntax.Hop(ip("192.0.2.1"), -1), ForwardedSyntax.node("::ffff:192.0.2.1"),
                "IPv4-mapped is the IPv4 address");
        assertEquals(new ForwardedSyntax.Hop(ip("192.0.2.1"), 65535), ForwardedSyntax.node("192.0.2.1:65535"));
    }

    @Test
    void anythingElseIsNotAnAddress() {
        for (String s : List.of("", " ", "unknown", "_hidden", "example.com", "localhost", "192.0.2.256", "192.0.2",
                "192.0.2.1.5", "192.0.2.1:", "192.0.2.1:65536", "192.0.2.1:123456", "192.0.2.1:-1", "192.0.2.1:x",
                "192.0.2.1:_", "192.0.2.1:_a b", "[192.0.2.1]", "[2001:db8::1", "[2001:db8::1]x", "[2001:db8::1]:",
                "2001:db8::1::2", "fe80::1%1", "fe80::1%eth0", "[fe80::1%25eth0]", "\"192.0.2.1\"", "192.0.2.1 x",
                "0x7f.0.0.1", "１.2.3.4", "2001:db8:0:0:0:0:0:0:1", "12345::1", "1.2.3.4/8", "192.0.2.1;")) {
            assertNull(ForwardedSyntax.node(s), "'" + s + "' is not an address");
        }
    }

    @Test
    void forwardedElements() {
        assertEquals(ip("192.0.2.60"), ForwardedSyntax.forwardedElement("for=192.0.2.60;proto=http;by=203.0.113.43").address());
        assertEquals(ip("2001:db8:cafe::17"), ForwardedSyntax.forwardedElement("For=\"[2001:db8:cafe::17]:4711\"").address());
        assertEquals(ip("2001:db8:cafe::17"), ForwardedSyntax.forwardedElement(" by=x;for=\"\\[2001:db8:cafe::17]\" ").address());
        assertEquals(ip("192.0.2.1"), ForwardedSyntax.forwardedElement("host=\"a;b\";for=192.0.2.1").address(),
                "a ; inside quotes separates nothing");
        assertEquals(ip("192.0.2.1"), ForwardedSyntax.forwardedElement("for=192.0.2.1;ext=\"x;for=198.51.100.9\"").address(),
                "a for inside quotes is a value, not a second for");
        assertEquals(ip("192.0.2.1"),
                ForwardedSyntax.forwardedElement("for=192.0.2.1;ext=\"a\\\";for=198.51.100.9\"").address(),
                "an escaped quote does not end the quoted string");
        for (String s : List.of("", "proto=https", "for=", "for=unknown", "for=_hidden", "for=\"_hidden:80\"",
                "for=192.0.2.1;for=192.0.2.1", "for=\"192.0.2.1", "for=\"192.0.2.1\"x\"", "for==192.0.2.1",
                "for=\"[2001:db8::1]\\\"", "forx=192.0.2.1")) {
            assertNull(ForwardedSyntax.forwardedElement(s), "'" + s + "' names no address");
        }
    }
}
