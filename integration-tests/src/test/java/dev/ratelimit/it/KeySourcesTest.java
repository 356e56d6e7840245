package dev.ratelimit.it;

import static dev.ratelimit.it.RateLimitHeaders.assertPolicy;
import static dev.ratelimit.it.RateLimitHeaders.remaining;
import static dev.ratelimit.it.RateLimitHeaders.retryAfter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * What a request is counted against: an API key header ({@code header:X-Api-Key}, falling back to
 * the address when absent) and the signed-in user ({@code principal}, falling back to the address
 * for anonymous callers).
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class KeySourcesTest {

    TestClient client;

    @BeforeEach
    void idle() {
        client = TestClient.fresh();
        RedisState.flush();
    }

    private Response partner(String apiKey) {
        return apiKey == null ? client.given().get("/partner") : client.given().header("X-Api-Key", apiKey).get("/partner");
    }

    @Test
    void apiKeysAreLimitedIndependently() {
        // partner: gcra, 5 per minute per X-Api-Key
        for (int i = 1; i <= 5; i++) {
            Response r = partner("key-a");
            assertEquals(200, r.statusCode(), "key-a request " + i);
            assertEquals("quote for key-a", r.asString());
            assertPolicy(r, "partner", 5, 60);
            assertEquals(5 - i, remaining(r, "partner"));
        }
        Response denied = partner("key-a");
        assertEquals(429, denied.statusCode());
        assertEquals("partner", denied.jsonPath().getString("policy"));
        long retryAfter = retryAfter(denied);
        assertTrue(retryAfter >= 11 && retryAfter <= 12, "gcra, 5 per minute: one unit every 12 s; Retry-After " + retryAfter);

        // same client address, another key: a budget of its own
        for (int i = 1; i <= 5; i++) {
            Response r = partner("key-b");
            assertEquals(200, r.statusCode(), "key-b request " + i);
            assertEquals(5 - i, remaining(r, "partner"));
        }
        assertEquals(429, partner("key-b").statusCode());
        assertEquals(429, partner("key-a").statusCode(), "key-b's requests do not refill key-a");
        assertEquals(List.of("hdr=key-a", "hdr=key-b"), RedisState.tags("partner"));
    }

    @Test
    void aMissingApiKeyFallsBackToTheClientAddress() {
        for (int i = 1; i <= 5; i++) {
            Response r = partner(null);
            assertEquals(200, r.statusCode(), "request without key " + i);
            assertEquals(5 - i, remaining(r, "partner"));
        }
        assertEquals(List.of(client.identity()), RedisState.tags("partner"), "counted against the address");
        assertEquals(429, partner(null).statusCode());
        assertEquals(429, client.given().header("X-Api-Key", "").get("/partner").statusCode(),
                "an empty key is a missing key");

        // another address without a key has its own budget; a key is independent of the address budget
        TestClient other = TestClient.fresh();
        Response fromOther = other.given().get("/partner");
        assertEquals(200, fromOther.statusCode());
        assertEquals(4, remaining(fromOther, "partner"));
        Response withKey = partner("key-c");
        assertEquals(200, withKey.statusCode());
        assertEquals(4, remaining(withKey, "partner"));
        assertEquals(List.of("hdr=key-c", client.identity(), other.identity()), RedisState.tags("partner"));
    }

    @Test
    void signedInUsersAreLimitedIndependentlyAndAnonymousCallersByAddress() {
        // per-user: 3 per minute, key=principal
        for (int i = 1; i <= 3; i++) {
            Response r = client.given().auth().preemptive().basic("alice", "alice-secret").get("/account");
            assertEquals(200, r.statusCode(), "alice request " + i);
            assertEquals("alice", r.asString());
            assertPolicy(r, "per-user", 3, 60);
            assertEquals(3 - i, remaining(r, "per-user"));
        }
        Response denied = client.given().auth().preemptive().basic("alice", "alice-secret").get("/account");
        assertEquals(429, denied.statusCode());
        assertEquals("per-user", denied.jsonPath().getString("policy"));
        long retryAfter = retryAfter(denied);
        assertTrue(retryAfter >= 19 && retryAfter <= 20, "one unit per 20 s: Retry-After was " + retryAfter);
        // the budget is the user's, whichever endpoint of the policy she calls
        assertEquals(429, client.given().auth().preemptive().basic("alice", "alice-secret").get("/account/greeting")
                .statusCode());

        // bob, from the same address: his own budget
        Response bob = client.given().auth().preemptive().basic("bob", "bob-secret").get("/account");
        assertEquals(200, bob.statusCode());
        assertEquals("bob", bob.asString());
        assertEquals(2, remaining(bob, "per-user"));

        // anonymous callers are counted against their address, apart from the users of that address
        for (int i = 1; i <= 3; i++) {
            Response guest = client.given().get("/account/greeting");
            assertEquals(200, guest.statusCode(), "anonymous request " + i);
            assertEquals("hello, guest", guest.asString());
            assertEquals(3 - i, remaining(guest, "per-user"));
        }
        assertEquals(429, client.given().get("/account/greeting").statusCode());
        // a user still has a budget when the address has none
        Response bobGreeting = client.given().auth().preemptive().basic("bob", "bob-secret").get("/account/greeting");
        assertEquals(200, bobGreeting.statusCode());
        assertEquals("hello, bob", bobGreeting.asString());
        assertEquals(1, remaining(bobGreeting, "per-user"));

        assertEquals(List.of(client.identity(), "user=alice", "user=bob"), RedisState.tags("per-user"));
    }

    @Test
    void rejectedCredentialsAreNotCountedAsTheUser() {
        Response wrong = client.given().auth().preemptive().basic("alice", "wrong").get("/account");
        assertEquals(401, wrong.statusCode());
        Response anonymous = client.given().get("/account");
        assertEquals(401, anonymous.statusCode(), "authentication comes before the limit");
        assertTrue(RedisState.tags("per-user").stream().noneMatch(t -> t.startsWith("user=")), RedisState.tags("per-user").toString());
    }
}
