package dev.ratelimit.it;

import static dev.ratelimit.it.RateLimitHeaders.remaining;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * Client-controlled input that ends up in keys: huge, brace- and colon-laden, non-ASCII API keys, and
 * spoofed forwarding headers. None may cause a server error, grow keys without bound, steer the
 * Redis Cluster hash tag, or reach another client's budget.
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class HostileInputTest {

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

    private Response partner(String apiKey) {
        return client.given().header("X-Api-Key", apiKey).get("/partner");
    }

    @Test
    void aTenKilobyteApiKeyIsHashedIntoAShortKeyAndLimitedLikeAnyOther() {
        String huge = "k".repeat(10 * 1024);
        Response first = partner(huge);
        assertEquals(200, first.statusCode());
        assertEquals(4, remaining(first, "partner"));
        Response second = partner(huge);
        assertEquals(200, second.statusCode());
        assertEquals(3, remaining(second, "partner"), "the same huge key is the same budget");
        // differing only in its last character: not truncated into the same budget
        Response other = partner(huge.substring(1) + "x");
        assertEquals(200, other.statusCode());
        assertEquals(4, remaining(other, "partner"));

        List<String> tags = RedisState.tags("partner");
        assertEquals(2, tags.size(), tags.toString());
        assertTrue(tags.stream().allMatch(t -> t.matches(":[0-9a-f]{32}")), "huge identities are hashed: " + tags);
    }

    @Test
    void bracesColonsAndNonAsciiInAKeyNeverShapeTheRedisKey() {
        List<String> ascii = List.of("{x}", "}", "{", "}:partner", "a:b:c", "rl:{hdr=victim}:partner", "%7Bvictim%7D",
                "%F0%9F%94%91", "hdr=x", "key with spaces", "\"quoted\";r=99");
        Set<String> tags = new LinkedHashSet<>();
        for (String key : ascii) {
            Response r = partner(key);
            assertEquals(200, r.statusCode(), "key " + key);
            assertEquals(4, remaining(r, "partner"), "key " + key + " starts with a budget of its own");
            Response again = partner(key);
            assertEquals(3, remaining(again, "partner"), "key " + key + " keeps its budget");
        }
        // raw bytes on the wire: UTF-8 (emoji, Cyrillic), Latin-1, a tab inside the value
        List<byte[]> raw = List.of("ключ-🔑".getBytes(StandardCharsets.UTF_8), "clé".getBytes(StandardCharsets.ISO_8859_1),
                "tab\there".getBytes(StandardCharsets.US_ASCII), "{ключ}:x".getBytes(StandardCharsets.UTF_8));
        for (byte[] value : raw) {
            RawHttp.Reply r = RawHttp.get(client.address(), "/partner", "X-Api-Key", value);
            assertEquals(200, r.status(), "raw key " + new String(value, StandardCharsets.UTF_8) + ": " + r);
            assertTrue(r.header("RateLimit").contains(";r=4;"), r.header("RateLimit"));
            RawHttp.Reply again = RawHttp.get(client.address(), "/partner", "X-Api-Key", value);
            assertTrue(again.header("RateLimit").contains(";r=3;"), "the same bytes keep their budget: " + again.header("RateLimit"));
        }
        tags.addAll(RedisState.tags("partner"));
        assertEquals(ascii.size() + raw.size(), tags.size(), "one key per distinct API key: " + tags);
        for (String tag : tags) {
            if (tag.contains("{") || tag.contains("}") || tag.contains(" ") || tag.chars().anyMatch(c -> c > 0x7e)) {
                throw new AssertionError("unsafe hash tag " + tag);
            }
        }
        // every value with braces, colons, spaces or non-ASCII was hashed; the plain ASCII ones stay readable
        assertTrue(tags.contains("hdr=%7Bvictim%7D"), tags.toString());
        assertTrue(tags.contains("hdr=hdr=x"), tags.toString());
    }

    @Test
    void aCraftedKeyCannotShareOrResetAnotherClientsBudget() {
        // the victim spends its whole budget
        for (int i = 0; i < 5; i++) {
            assertEquals(200, partner("victim").statusCode());
        }
        assertEquals(429, partner("victim").statusCode());
        String victimTag = RedisState.tags("partner").get(0);
        assertEquals("hdr=victim", victimTag);

        // a long (so hashed) victim too
        String longVictim = "v".repeat(100);
        for (int i = 0; i < 5; i++) {
            assertEquals(200, partner(longVictim).statusCode());
        }
        assertEquals(429, partner(longVictim).statusCode());
        List<String> hashed = new ArrayList<>(RedisState.tags("partner"));
        hashed.remove(victimTag);
        String longVictimTag = hashed.get(0);
        assertTrue(longVictimTag.matches(":[0-9a-f]{32}"), longVictimTag);

        // values naming the victims' identities, keys or hash tags in every way: each is a budget of its own
        List<String> crafted = List.of("hdr=victim", "{hdr=victim}", "victim}:partner", "{victim}", "rl:{hdr=victim}:partner",
                "victim:", "victim%00", longVictimTag, longVictimTag.substring(1),
                "hdr=" + longVictim, "{" + longVictimTag + "}", client.identity());
        for (String key : crafted) {
            Response r = partner(key);
            assertEquals(200, r.statusCode(), "crafted key " + key + " must not land in an exhausted budget");
            assertEquals(4, remaining(r, "partner"), "crafted key " + key + " starts fresh, so shares nobody's budget");
        }
        // and the victims stay exhausted: nothing was reset
        assertEquals(429, partner("victim").statusCode());
        assertEquals(429, partner(longVictim).statusCode());
        assertEquals(2 + crafted.size(), RedisState.tags("partner").size());

        // the address budget (requests without a key) cannot be reached through the header either
        for (int i = 0; i < 5; i++) {
            assertEquals(200, client.given().get("/partner").statusCode());
        }
        assertEquals(429, client.given().get("/partner").statusCode());
        assertEquals(200, partner(client.identity()).statusCode(), "a header naming the address is a header key");
        assertEquals(200, partner(client.address().getHostAddress()).statusCode());
        assertEquals(429, client.given().get("/partner").statusCode(), "the address budget was not reset");
    }

    @Test
    void spoofedForwardingHeadersFromAnUntrustedPeerShareTheCallersRealBudget() {
        // public: 10 per 10 s per address; proxy forwarding is not enabled, so the peer address counts
        for (int i = 1; i <= 10; i++) {
            Response r = client.given()
                    .header("X-Forwarded-For", "203.0.113." + i)
                    .header("Forwarded", "for=198.51.100." + i)
                    .header("X-Real-IP", "192.0.2." + i)
                    .get("/public/page");
            assertEquals(200, r.statusCode());
            assertEquals(10 - i, remaining(r, "public"), "every spoofed address draws on the caller's one budget");
        }
        for (String spoof : List.of("203.0.113.200", "::1", "{x}:y", "unknown", "x".repeat(4096), "1.2.3.4, 5.6.7.8")) {
            Response r = client.given().header("X-Forwarded-For", spoof).header("Forwarded", "for=\"" + spoof + "\"")
                    .get("/public/page");
            assertEquals(429, r.statusCode(), "a spoofed X-Forwarded-For " + spoof.substring(0, Math.min(20, spoof.length()))
                    + " must not obtain a fresh budget");
        }
        assertEquals(List.of(client.identity()), RedisState.tags("public"));
    }

    @Test
    void pathSpellingsThatReachAPublicPageCannotEscapeThePathPolicy() {
        // the path policy must see the path the resource is matched on, however the client spells it:
        // every spelling that reaches a public page draws on the one budget (10 per 10 s)
        List<String> spellings = List.of("/public/a", "/public/a/", "//public/a", "/public//a", "/./public/a",
                "/x/../public/a", "/%70ublic/a", "/public/%61", "/public%2Fa", "/public/a;v=1", "/PUBLIC/a",
                "/public/a?x=1", "/public/a#frag", "/public/%2e/a");
        long expected = 10;
        int reached = 0;
        for (String path : spellings) {
            RawHttp.Reply r = RawHttp.get(client.address(), path, "X-Spelling", path.getBytes(StandardCharsets.US_ASCII));
            assertTrue(r.status() < 500, path + " answered " + r.status());
            if (r.status() == 404) {
                continue;
            }
            String rateLimit = r.header("RateLimit");
            assertTrue(rateLimit != null && rateLimit.contains("\"public\""),
                    path + " answered " + r.status() + " " + r.body() + " without the public policy; RateLimit: " + rateLimit);
            if (expected > 0) {
                assertEquals(200, r.status(), path);
                assertTrue(r.body().startsWith("page "), path + ": " + r.body());
                expected--;
                assertTrue(rateLimit.contains(";r=" + expected + ";"), path + " must draw on the one budget: " + rateLimit);
                reached++;
            } else {
                assertEquals(429, r.status(), path + " after the budget is spent");
            }
        }
        assertEquals(10, reached, "ten spellings reached a public page and spent the budget");
    }
}
