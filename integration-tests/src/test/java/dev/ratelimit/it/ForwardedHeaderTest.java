package dev.ratelimit.it;

import static dev.ratelimit.it.RateLimitHeaders.remaining;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

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
 * The {@code ip} key behind proxies that append RFC 7239 {@code Forwarded} elements
 * ({@code quarkus.http.proxy.allow-forwarded=true}): the client is the {@code for} of the rightmost
 * element that is not a trusted proxy. Trusted proxies here: 127.0.0.0/29 and 2001:db8:ffff::/48;
 * clients: 127.0.1.x.
 */
@QuarkusTest
@TestProfile(ForwardedHeaderTest.BehindProxies.class)
@QuarkusTestResource(RedisTestResource.class)
class ForwardedHeaderTest {

    public static class BehindProxies implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.http.proxy.proxy-address-forwarding", "true",
                    "quarkus.http.proxy.allow-forwarded", "true",
                    "quarkus.http.proxy.trusted-proxies", "127.0.0.0/29,2001:db8:ffff::/48");
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

    @Test
    void aClientSpoofingForwardedElementsThroughAnAppendingProxyIsCountedUnderItsRealAddress() {
        List<String> spoofs = List.of("for=203.0.113.1", "for=\"[2001:db8::1]:80\"", "for=unknown", "for=_hidden",
                "for=203.0.113.2;proto=https, for=127.0.0.2", "for=\"203.0.113.3, for=198.51.100.1\"", "for=\"203.0.113.4",
                "for=203.0.113.5;for=203.0.113.6", "by=127.0.0.1", "FOR=203.0.113.7", "for=203.0.113.8");
        try (AppendingProxy proxy = AppendingProxy.start(Header.FORWARDED, "127.0.0.1", RestAssured.port)) {
            for (int i = 0; i < 10; i++) {
                Response r = client.given().port(proxy.port()).header("Forwarded", spoofs.get(i)).get(PAGE);
                assertEquals(200, r.statusCode(), "spoofed " + spoofs.get(i));
                assertEquals(9 - i, remaining(r, "public"), "spoofed " + spoofs.get(i) + " draws on the client's one budget");
            }
            assertEquals(429, client.given().port(proxy.port()).header("Forwarded", spoofs.get(10)).get(PAGE).statusCode());
        }
        assertEquals(List.of(client.identity()), RedisState.tags("public"));
    }

    @Test
    void chainsOfTrustedProxiesAndTheIpv6FormsOfRfc7239() {
        // 127.0.0.1 is a trusted proxy writing what it and the proxies before it saw
        TestClient proxy = TestClient.at("127.0.0.1");
        List<String> chains = List.of("for=\"[2001:db8:2:3::1]:4711\"", "for=203.0.113.1, For=\"[2001:db8:2:3::2]\";proto=https",
                "for=\"[2001:db8:2:3::3]\";by=\"[2001:db8:ffff::1]\", for=\"[2001:db8:ffff::1]:443\"",
                "for=_x, for=\"[2001:db8:2:3::4]\", for=127.0.0.5, for=\"[2001:db8:ffff:2::2]\"",
                "for=\"[2001:db8:2:3::5]\";host=example.com;proto=https", "for=\"[2001:db8:2:3::6]:_port\"",
                "for=\"\\[2001:db8:2:3::7]\"", " for = \"[2001:db8:2:3::8]\" ", "for=2001:db8:2:3::9",
                "for=\"[2001:db8:2:3::a]\",for=\"[2001:db8:ffff::3]\"");
        for (int i = 0; i < 10; i++) {
            Response r = proxy.given().header("Forwarded", chains.get(i)).get(PAGE);
            assertEquals(200, r.statusCode(), chains.get(i));
            assertEquals(9 - i, remaining(r, "public"), chains.get(i) + ": one /64, one budget");
        }
        assertEquals(429, proxy.given().header("Forwarded", "for=\"[2001:db8:2:3::b]\"").get(PAGE).statusCode());
        assertEquals(List.of("ip6=20010db800020003/64"), RedisState.tags("public"));
    }

    @Test
    void anUnknownOrObfuscatedClientCountsAgainstTheProxyThatReportedIt() {
        TestClient proxy = TestClient.at("127.0.0.2");
        List<String> hidden = List.of("for=198.51.100.1, for=unknown", "for=198.51.100.2, for=_hidden",
                "for=198.51.100.3, for=\"_hidden:80\"", "for=198.51.100.4, proto=https", "for=198.51.100.5, ",
                "for=198.51.100.6, for=\"198.51.100.6", "for=198.51.100.7, for=example.com",
                "for=198.51.100.8, for=198.51.100.8;for=198.51.100.9", "for=198.51.100.9, for=\"[fe80::1%1]\"",
                "for=198.51.100.10, for==198.51.100.10", "for=198.51.100.11, for=\"999.1.1.1\"");
        for (int i = 0; i < 10; i++) {
            Response r = proxy.given().header("Forwarded", hidden.get(i)).get(PAGE);
            assertEquals(200, r.statusCode(), hidden.get(i));
            assertEquals(9 - i, remaining(r, "public"), hidden.get(i) + " counts against the proxy");
        }
        assertEquals(429, proxy.given().header("Forwarded", hidden.get(10)).get(PAGE).statusCode());
        assertEquals(List.of("ip=127.0.0.2"), RedisState.tags("public"));
    }

    @Test
    void xForwardedForIsNotReadWhenOnlyForwardedIsAllowed() {
        TestClient proxy = TestClient.at("127.0.0.3");
        Response xff = proxy.given().header("X-Forwarded-For", "198.51.100.50").get(PAGE);
        assertEquals(9, remaining(xff, "public"), "counted against the proxy itself");
        Response both = proxy.given().header("X-Forwarded-For", "198.51.100.50").header("Forwarded", "for=198.51.100.51")
                .get(PAGE);
        assertEquals(9, remaining(both, "public"));
        assertEquals(List.of("ip=127.0.0.3", "ip=198.51.100.51"), RedisState.tags("public"));
    }

    @Test
    void headersFromAPeerThatIsNotTrustedAreIgnored() {
        for (int i = 1; i <= 10; i++) {
            Response r = client.given().header("Forwarded", "for=203.0.113." + i).get(PAGE);
            assertEquals(200, r.statusCode());
            assertEquals(10 - i, remaining(r, "public"));
        }
        assertEquals(429, client.given().header("Forwarded", "for=203.0.113.11, for=127.0.0.1").get(PAGE).statusCode());
        assertEquals(List.of(client.identity()), RedisState.tags("public"));
    }
}
