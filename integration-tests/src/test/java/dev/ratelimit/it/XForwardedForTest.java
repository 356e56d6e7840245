package dev.ratelimit.it;

import static dev.ratelimit.it.RateLimitHeaders.remaining;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.it.AppendingProxy.Header;
import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.response.Response;

/**
 * The {@code ip} key behind proxies that append to {@code X-Forwarded-For} (nginx's
 * {@code $proxy_add_x_forwarded_for}, cloud load balancers): the client is the rightmost address
 * that is not a trusted proxy, what the nearest trusted proxy saw, never what the client wrote.
 * Over real HTTP, through {@link AppendingProxy}. Loopback addresses stand for hosts: 127.0.0.1 and
 * 127.0.0.2 are trusted proxies, 127.0.0.3 an untrusted one, 127.0.1.x the clients.
 */
@QuarkusTest
@TestProfile(XForwardedForTest.BehindProxies.class)
@QuarkusTestResource(RedisTestResource.class)
class XForwardedForTest {

    public static class BehindProxies implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.http.proxy.proxy-address-forwarding", "true",
                    "quarkus.http.proxy.trusted-proxies", "127.0.0.1,127.0.0.2,2001:db8:ffff::/48");
        }
    }

    /** public: sliding-window-log, 10 per 10 s per address. */
    static final String PAGE = "/public/page";

    TestClient client;

    @BeforeEach
    void idle() {
        client = TestClient.fresh();
        RedisState.flush();
    }

    @AfterEach
    void keysStayBoundedAndSafe() {
        RedisState.assertAllKeysSafe();
    }

    private static Response through(AppendingProxy proxy, TestClient from, String xForwardedFor) {
        return from.given().port(proxy.port()).header("X-Forwarded-For", xForwardedFor).get(PAGE);
    }

    private static long remainingOf(RawHttp.Reply reply) {
        return RateLimitHeaders.parse(reply.header("RateLimit")).get("public").get("r");
    }

    @Test
    void aClientSpoofingTheLeftmostAddressThroughAnAppendingProxyIsCountedUnderItsRealAddress() {
        List<String> spoofs = List.of("203.0.113.1", "203.0.113.2", "198.51.100.7, 198.51.100.8", "2001:db8::1",
                "127.0.0.2", "unknown", "127.0.0.1, 127.0.0.2", "[2001:db8::2]:80", "{x}:y", "203.0.113.3:4711",
                "203.0.113.4");
        try (AppendingProxy proxy = AppendingProxy.start(Header.X_FORWARDED_FOR, "127.0.0.1", RestAssured.port)) {
            for (int i = 0; i < 10; i++) {
                Response r = through(proxy, client, spoofs.get(i));
                assertEquals(200, r.statusCode(), "spoofed " + spoofs.get(i));
                assertEquals(9 - i, remaining(r, "public"), "spoofed " + spoofs.get(i) + " draws on the client's one budget");
            }
            assertEquals(429, through(proxy, client, spoofs.get(10)).statusCode(), "a fresh spoof gets no fresh budget");
            assertEquals(429, client.given().port(proxy.port()).get(PAGE).statusCode(), "nor does no header at all");
        }
        assertEquals(List.of(client.identity()), RedisState.tags("public"));
    }

    @Test
    void twoClientsBehindTheSameProxyHaveBudgetsOfTheirOwn() {
        TestClient other = TestClient.fresh();
        try (AppendingProxy proxy = AppendingProxy.start(Header.X_FORWARDED_FOR, "127.0.0.1", RestAssured.port)) {
            for (int i = 1; i <= 10; i++) {
                assertEquals(200, through(proxy, client, "203.0.113.9").statusCode());
            }
            assertEquals(429, through(proxy, client, "203.0.113.9").statusCode());
            // the other client claims the same address; it is counted under its own
            Response r = through(proxy, other, "203.0.113.9");
            assertEquals(200, r.statusCode());
            assertEquals(9, remaining(r, "public"));
            // the proxy's own address was charged for neither of them
            Response fromTheProxy = TestClient.at("127.0.0.1").given().get(PAGE);
            assertEquals(9, remaining(fromTheProxy, "public"));
        }
        assertEquals(new TreeSet<>(List.of(client.identity(), other.identity(), "ip=127.0.0.1")),
                new TreeSet<>(RedisState.tags("public")));
    }

    @Test
    void aChainOfTrustedProxiesIsWalkedFromTheRight() {
        // client -> outer (connects from 127.0.0.2) -> inner (from 127.0.0.1) -> application
        // the application sees X-Forwarded-For: <spoof>, <client>, 127.0.0.2 from peer 127.0.0.1
        try (AppendingProxy inner = AppendingProxy.start(Header.X_FORWARDED_FOR, "127.0.0.1", RestAssured.port);
                AppendingProxy outer = AppendingProxy.start(Header.X_FORWARDED_FOR, "127.0.0.2", inner.port())) {
            for (int i = 1; i <= 10; i++) {
                Response r = through(outer, client, "203.0.113." + i + ", 127.0.0.2");
                assertEquals(200, r.statusCode());
                assertEquals(10 - i, remaining(r, "public"));
            }
            assertEquals(429, through(outer, client, "203.0.113.99").statusCode());
        }
        assertEquals(List.of(client.identity()), RedisState.tags("public"));
    }

    @Test
    void theWalkStopsAtAProxyThatIsNotTrusted() {
        // 127.0.0.3 is not in trusted-proxies: what it says is not believed, so it is the client,
        // and everyone behind it shares its budget (list every proxy of the chain)
        TestClient other = TestClient.fresh();
        try (AppendingProxy inner = AppendingProxy.start(Header.X_FORWARDED_FOR, "127.0.0.1", RestAssured.port);
                AppendingProxy untrusted = AppendingProxy.start(Header.X_FORWARDED_FOR, "127.0.0.3", inner.port())) {
            for (int i = 1; i <= 10; i++) {
                Response r = through(untrusted, i % 2 == 0 ? client : other, "203.0.113." + i);
                assertEquals(200, r.statusCode());
                assertEquals(10 - i, remaining(r, "public"));
            }
            assertEquals(429, through(untrusted, client, "203.0.113.11").statusCode());
        }
        assertEquals(List.of("ip=127.0.0.3"), RedisState.tags("public"));
    }

    @Test
    void headersFromAPeerThatIsNotTrustedAreIgnored() {
        for (int i = 1; i <= 10; i++) {
            Response r = client.given().header("X-Forwarded-For", "203.0.113." + i)
                    .header("Forwarded", "for=198.51.100." + i).get(PAGE);
            assertEquals(200, r.statusCode());
            assertEquals(10 - i, remaining(r, "public"), "the caller is the client, whatever it writes");
        }
        assertEquals(429, client.given().header("X-Forwarded-For", "203.0.113.200, 127.0.0.1").get(PAGE).statusCode());
        assertEquals(List.of(client.identity()), RedisState.tags("public"));
    }

    @Test
    void ipv6ClientsAreCountedByTheirPrefixWhateverTheyWrite() {
        // 127.0.0.1 is a trusted proxy writing what it saw; 2001:db8:ffff::/48 are trusted proxies too
        TestClient proxy = TestClient.at("127.0.0.1");
        List<String> chains = List.of("203.0.113.1, 2001:db8:1:2::1", "2001:db8:9:9::9, 2001:db8:1:2::2",
                "[2001:db8:1:2::3]:4711", "203.0.113.2, 2001:DB8:1:2:0:0:0:4", "2001:db8:1:2::5, 2001:db8:ffff::1",
                "203.0.113.3, 2001:db8:1:2::6, 2001:db8:ffff::1, 2001:db8:ffff:1::2", "[2001:db8:1:2::7]",
                "x, 2001:0db8:0001:0002::8", "2001:db8:1:2:ffff:ffff:ffff:ffff", "::1, 2001:db8:1:2::a");
        for (int i = 0; i < 10; i++) {
            Response r = proxy.given().header("X-Forwarded-For", chains.get(i)).get(PAGE);
            assertEquals(200, r.statusCode(), chains.get(i));
            assertEquals(9 - i, remaining(r, "public"), chains.get(i) + ": one /64, one budget");
        }
        assertEquals(429, proxy.given().header("X-Forwarded-For", "2001:db8:1:2::b").get(PAGE).statusCode());
        // the next /64 is another client
        Response next = proxy.given().header("X-Forwarded-For", "2001:db8:1:2::c, 2001:db8:1:3::1").get(PAGE);
        assertEquals(200, next.statusCode());
        assertEquals(9, remaining(next, "public"));
        assertEquals(List.of("ip6=20010db800010002/64", "ip6=20010db800010003/64"), RedisState.tags("public"));
    }

    @Test
    void anIpv4MappedAddressIsTheIpv4Client() {
        TestClient proxy = TestClient.at("127.0.0.1");
        Response mapped = proxy.given().header("X-Forwarded-For", "::ffff:198.51.100.40").get(PAGE);
        assertEquals(9, remaining(mapped, "public"));
        Response plain = proxy.given().header("X-Forwarded-For", "198.51.100.40").get(PAGE);
        assertEquals(8, remaining(plain, "public"));
        assertEquals(List.of("ip=198.51.100.40"), RedisState.tags("public"));
    }

    @Test
    void anElementThatIsNotAnAddressWhereTheClientShouldBeCountsAgainstTheProxyThatSentIt() {
        // what the walk reaches first is malformed: the client is unknown, and a malformed value
        // never becomes a key (a client could write endless variants of it)
        TestClient proxy = TestClient.at("127.0.0.2");
        List<String> malformed = List.of("198.51.100.1, unknown", "198.51.100.2, _hidden", "198.51.100.3, 999.0.0.1",
                "198.51.100.4, \"198.51.100.4\"", "198.51.100.5, 198.51.100.5 x", "198.51.100.6,",
                "198.51.100.7, fe80::1%1", "198.51.100.8, example.com", "198.51.100.9, 2001:db8::1::2",
                "198.51.100.10, [2001:db8::1", "198.51.100.11, 198.51.100.11:99999");
        for (int i = 0; i < 10; i++) {
            Response r = proxy.given().header("X-Forwarded-For", malformed.get(i)).get(PAGE);
            assertEquals(200, r.statusCode(), malformed.get(i));
            assertEquals(9 - i, remaining(r, "public"), malformed.get(i) + " counts against the proxy");
        }
        assertEquals(429, proxy.given().header("X-Forwarded-For", malformed.get(10)).get(PAGE).statusCode());
        assertEquals(List.of("ip=127.0.0.2"), RedisState.tags("public"));
    }

    @Test
    void severalHeaderLinesAreOneListInTheirOrder() {
        InetAddress proxy = TestClient.at("127.0.0.1").address();
        for (int i = 1; i <= 10; i++) {
            RawHttp.Reply r = i % 2 == 0
                    ? RawHttp.get(proxy, PAGE, "X-Forwarded-For", "203.0.113." + i, "X-Forwarded-For", "198.51.100.77")
                    : RawHttp.get(proxy, PAGE, "X-Forwarded-For", "203.0.113." + i + ", 198.51.100.77",
                            "X-Forwarded-For", "127.0.0.2");
            assertEquals(200, r.status(), r.toString());
            assertEquals(10 - i, remainingOf(r));
        }
        assertEquals(429, RawHttp.get(proxy, PAGE, "X-Forwarded-For", "203.0.113.11", "X-Forwarded-For", "198.51.100.77")
                .status());
        assertEquals(List.of("ip=198.51.100.77"), RedisState.tags("public"));
    }

    @Test
    void onlyXForwardedForCountsWhenOnlyItIsAllowed() {
        // allow-forwarded is off: a Forwarded header is not read, even from a trusted proxy
        TestClient proxy = TestClient.at("127.0.0.1");
        Response r = proxy.given().header("X-Forwarded-For", "198.51.100.60").header("Forwarded", "for=198.51.100.61")
                .get(PAGE);
        assertEquals(9, remaining(r, "public"));
        assertEquals(List.of("ip=198.51.100.60"), RedisState.tags("public"));
    }
}
