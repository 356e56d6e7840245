package dev.ratelimit.runtime.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Whom a request is counted against once Quarkus has trusted the peer: the walk over the header from
 * the right. The same behaviour over real HTTP is in the integration tests ({@code XForwardedForTest},
 * {@code ForwardedHeaderTest}).
 */
class ClientAddressTest {

    static final InetAddress PEER = ip("10.0.0.1");

    static InetAddress ip(String literal) {
        InetAddress a = ForwardedSyntax.literal(literal);
        assertNotNull(a, literal);
        return a;
    }

    static ClientAddress trusting(String... entries) {
        return new ClientAddress(true, ClientAddress.X_FORWARDED_FOR, null, List.of(entries));
    }

    static String xff(ClientAddress c, String... lines) {
        return c.walk(List.of(lines), false, PEER).getHostAddress();
    }

    static String fwd(ClientAddress c, String... lines) {
        return c.walk(List.of(lines), true, PEER).getHostAddress();
    }

    @Test
    void theClientIsTheRightmostAddressThatIsNotATrustedProxy() {
        ClientAddress c = trusting("10.0.0.0/8", "192.0.2.10");
        assertEquals("203.0.113.7", xff(c, "198.51.100.1, 203.0.113.7"));
        assertEquals("203.0.113.7", xff(c, "198.51.100.1, 203.0.113.7, 10.1.2.3, 192.0.2.10"));
        assertEquals("203.0.113.7", xff(c, "198.51.100.1,203.0.113.7 ,\t10.1.2.3"));
        assertEquals("192.0.2.11", xff(c, "203.0.113.7, 192.0.2.11, 10.1.2.3"), "not trusted, so the client");
        assertEquals("10.9.9.9", xff(c, "10.9.9.9, 192.0.2.10"), "all trusted: the leftmost");
        assertEquals("203.0.113.7", xff(c, "[2001:db8::1]:80, 203.0.113.7:4711"));
    }

    @Test
    void severalLinesAreOneListInTheirOrder() {
        ClientAddress c = trusting("10.0.0.0/8");
        assertEquals("203.0.113.7", xff(c, "198.51.100.1", "203.0.113.7"));
        assertEquals("203.0.113.7", xff(c, "198.51.100.1, 203.0.113.7", "10.0.0.2", "10.0.0.3, 10.0.0.4"));
        assertEquals("10.0.0.1", xff(c, "198.51.100.1, 203.0.113.7", ""), "an empty last line is no address");
    }

    @Test
    void aMalformedElementCountsAgainstTheTrustedProxyThatReportedIt() {
        ClientAddress c = trusting("10.0.0.0/8");
        assertEquals("10.0.0.1", xff(c, "203.0.113.7, unknown"), "reported by the peer");
        assertEquals("10.0.0.5", xff(c, "203.0.113.7, unknown, 10.0.0.5"), "reported by 10.0.0.5");
        assertEquals("10.0.0.5", xff(c, "203.0.113.7, , 10.0.0.5"));
        assertEquals("10.0.0.5", xff(c, "203.0.113.7, \"198.51.100.1\", 10.0.0.5"));
        assertEquals("10.0.0.1", xff(c, "203.0.113.7,"));
        assertEquals("10.0.0.1", fwd(c, "for=203.0.113.7, for=_hidden"));
        assertEquals("10.0.0.5", fwd(c, "for=203.0.113.7, proto=https, for=10.0.0.5"));
    }

    @Test
    void whatAClientWritesOnTheLeftCannotChangeHowTheRightIsSplit() {
        ClientAddress c = trusting("10.0.0.0/8");
        assertEquals("203.0.113.7", fwd(c, "for=\"198.51.100.1, for=203.0.113.7"), "unterminated quote on the left");
        assertEquals("203.0.113.7", fwd(c, "for=\"198.51.100.1, for=198.51.100.2\", for=203.0.113.7"));
        assertEquals("203.0.113.7", fwd(c, "for=\"x\\\", for=198.51.100.2\", for=203.0.113.7"));
        assertEquals("203.0.113.7", fwd(c, "for=\"198.51.100.1", "for=203.0.113.7"));
        assertEquals("203.0.113.7", fwd(c, "for=198.51.100.1, for=\"[2001:db8::1]:80\", for=203.0.113.7;proto=https"));
        assertEquals("2001:db8:0:0:0:0:0:1", fwd(c, "for=203.0.113.7, for=\"[2001:db8::1]:80\";by=_x, for=10.0.0.5"));
        assertEquals("2001:db8:0:0:0:0:0:1", fwd(c, "for=203.0.113.7, for=\"[2001:db8::1]\";ext=\"a, b\", for=10.0.0.5"),
                "a comma inside quotes separates no elements");
    }

    @Test
    void withoutTrustedProxiesNoHopIsTrustedSoTheRightmostIsTheClient() {
        // proxy-address-forwarding alone: Quarkus trusts every peer, and nothing in the header
        ClientAddress c = trusting();
        assertEquals("203.0.113.7", xff(c, "10.0.0.2, 203.0.113.7"));
        assertEquals("203.0.113.7", xff(c, "198.51.100.1, 10.0.0.2, 203.0.113.7"));
    }

    @Test
    void trustedProxiesInEveryFormQuarkusAccepts() {
        ClientAddress c = trusting("localhost", "192.0.2.10:8080", "[2001:db8::10]", "2001:db8:ffff::/48", "[::ffff:192.0.2.20]",
                "proxy.example.com", "proxy.example.com:80");
        assertEquals("198.51.100.1", xff(c, "198.51.100.1, 127.0.0.1"), "localhost is 127.0.0.1, as for Quarkus");
        assertEquals("198.51.100.1", xff(c, "198.51.100.1, 192.0.2.10:8080"), "an entry with a port trusts that port");
        assertEquals("192.0.2.10", xff(c, "198.51.100.1, 192.0.2.10:8081"));
        assertEquals("192.0.2.10", xff(c, "198.51.100.1, 192.0.2.10"));
        assertEquals("198.51.100.1", xff(c, "198.51.100.1, 2001:db8::10, 2001:db8:ffff:1::1"));
        assertEquals("198.51.100.1", xff(c, "198.51.100.1, 192.0.2.20"), "IPv4-mapped entries are IPv4");
        assertEquals("198.51.100.1", xff(c, "198.51.100.1, ::ffff:192.0.2.20"));
        // host names are never matched against hops (no lookup per request)
        assertEquals("203.0.113.7", xff(c, "198.51.100.1, 203.0.113.7"));
    }
}
