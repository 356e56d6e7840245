package dev.ratelimit.deployment.devui;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.util.HashMap;
import java.util.Map;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusDevModeTest;
import io.quarkus.test.common.http.TestHTTPResource;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The live Dev UI page's JSON-RPC methods, called over Dev UI's WebSocket as the page calls them, in a dev-mode
 * application whose resource is limited by policy {@code api} (3 an hour per {@code X-User}). Each backend's test
 * class says which backend decides and checks the status that names it.
 */
abstract class LiveDevUiScenarios {

    @TestHTTPResource("/")
    URL application;

    DevUiJsonRpc devUi;

    @BeforeEach
    void connect() throws Exception {
        devUi = DevUiJsonRpc.connect(application);
    }

    @AfterEach
    void disconnect() {
        devUi.close();
    }

    /** A dev-mode application with {@link Limited}, the policies below, and {@code extra} properties. */
    static QuarkusDevModeTest application(String extra) {
        String properties = String.join("\n",
                "quarkus.http.port=0",
                "quarkus.ratelimit.policies.api.limit=3",
                "quarkus.ratelimit.policies.api.window=1h",
                "quarkus.ratelimit.policies.api.key=header:X-User",
                "quarkus.ratelimit.policies.tiered.limit=2",
                "quarkus.ratelimit.policies.tiered.window=1h",
                "quarkus.ratelimit.policies.tiered.on-failure=fail-closed",
                "quarkus.ratelimit.policies.tiered.plans.gold.limit=10",
                "quarkus.ratelimit.policies.partner.limit=3",
                "quarkus.ratelimit.policies.partner.window=1h",
                "quarkus.ratelimit.policies.partner.overrides=true",
                "quarkus.ratelimit.policies.feed.limit=1000",
                "quarkus.ratelimit.policies.feed.window=1h",
                "quarkus.ratelimit.policies.feed.key=header:X-User",
                "quarkus.ratelimit.policies.feed.lease=auto",
                extra);
        return new QuarkusDevModeTest()
                .withApplicationRoot(jar -> jar.addClass(Limited.class)
                        .addAsResource(new StringAsset(properties), "application.properties"));
    }

    /** The status's backend part; each backend's test checks it. */
    abstract void statusNamesTheBackend(JsonObject status);

    /**
     * What needs no request first: the status, a lookup on a plan, a hint for a key without its kind, the answers to
     * bad input. One test, as dev mode restarts the application for each.
     */
    @Test
    void statusLookupsAndBadInput() throws Exception {
        statusNamesTheBackendAndTheFailureModes();
        aPlanIsLookedUpOnItsOwnValues();
        aKeyWithoutItsKindGetsAHint();
        badInputIsAnsweredWithWhatToFix();
        anOverrideIsSetShownAndCleared();
    }

    /** A key's own limit, set from the page on a policy with overrides, shown by lookups, cleared; bad input refused. */
    void anOverrideIsSetShownAndCleared() throws Exception {
        JsonObject set = devUi.object("setOverride", Map.of("policy", "partner", "key", "hdr=acme", "limit", "10"));
        assertEquals(10, set.getLong("limit"), set::toString);
        assertEquals(10, set.getLong("capacity"), set::toString);
        assertEquals("limit 10, until cleared", set.getString("override"), set::toString);
        JsonObject read = lookup("partner", "hdr=acme", null);
        assertEquals("limit 10, until cleared", read.getString("override"), read::toString);
        JsonObject cleared = devUi.object("clearOverride", Map.of("policy", "partner", "key", "hdr=acme"));
        assertFalse(cleared.containsKey("override"), cleared::toString);
        assertEquals(3, cleared.getLong("limit"), cleared::toString);
        JsonObject notTaking = devUi.object("setOverride", Map.of("policy", "api", "key", "hdr=acme", "limit", "10"));
        assertTrue(notTaking.getString("error").contains("quarkus.ratelimit.policies.api.overrides=true"),
                notTaking::toString);
        JsonObject zero = devUi.object("setOverride", Map.of("policy", "partner", "key", "hdr=acme", "limit", "0"));
        assertTrue(zero.getString("error").contains("limit 0"), zero::toString);
        JsonObject words = devUi.object("setOverride", Map.of("policy", "partner", "key", "hdr=acme", "limit", "ten"));
        assertTrue(words.getString("error").startsWith("Enter the key's own limit"), words::toString);
    }

    void statusNamesTheBackendAndTheFailureModes() throws Exception {
        JsonObject status = devUi.object("status", Map.of());
        statusNamesTheBackend(status);
        assertFalse(status.getBoolean("failureModeAnswering"), status::toString);
        assertEquals("local", status.getJsonObject("failureModes").getString("api"), status::toString);
        assertEquals("fail-closed", status.getJsonObject("failureModes").getString("tiered"), status::toString);
    }

    /**
     * Over HTTP, then through the page's methods: decisions counted per policy with the denials, a lookup that charges
     * nothing, a reset that gives the whole limit back.
     */
    @Test
    void decisionsLookupAndReset() throws Exception {
        String user = "alice";
        String key = "hdr=alice"; // what a request with X-User: alice is counted under
        request(user, 200);
        request(user, 200);

        JsonObject first = lookup("api", key, null);
        assertEquals(1, first.getLong("remaining"), first::toString);
        assertTrue(first.getBoolean("allowed"), first::toString);
        assertEquals(3, first.getLong("capacity"), first::toString);
        assertFalse(first.containsKey("note"), first::toString);
        JsonObject second = lookup("api", key, null);
        assertEquals(1, second.getLong("remaining"), "a lookup charges nothing: " + second);
        request(user, 200); // the unit the lookups left
        request(user, 429);
        request(user, 429);

        JsonObject api = row(devUi.array("decisions"), "api");
        assertEquals(3, api.getLong("allowed"), api::toString);
        // with Redis, a denial repeated within its Retry-After is answered by this instance's deny cache
        assertEquals(2, api.getLong("denied") + api.getLong("deny-cache"), api::toString);
        assertTrue(api.getLong("denied") >= 1, api::toString);
        JsonObject limitedApi = row(devUi.array("limited"), "api");
        JsonObject alice = limitedApi.getJsonArray("keys").getJsonObject(0);
        assertEquals("hdr=alice", alice.getString("identity"), limitedApi::toString);
        assertEquals(2, alice.getLong("denials"), "who is limited now: " + limitedApi);
        JsonObject tiered = row(devUi.array("decisions"), "tiered");
        assertEquals(0, tiered.getLong("allowed"), tiered::toString);

        JsonObject spent = lookup("api", key, null);
        assertEquals(0, spent.getLong("remaining"), spent::toString);
        assertFalse(spent.getBoolean("allowed"), spent::toString);
        assertTrue(spent.getLong("retryAfterMillis") > 0, spent::toString);

        JsonObject reset = devUi.object("reset", Map.of("policy", "api", "key", key));
        assertTrue(reset.getBoolean("reset"), reset::toString);
        assertEquals(3, reset.getLong("remaining"), "the whole limit again: " + reset);
        request(user, 200);
        request(user, 200);
        request(user, 200);
        request(user, 429);
        JsonObject other = lookup("api", "hdr=bob", null);
        assertEquals(3, other.getLong("remaining"), "another key is its own: " + other);
    }

    /** A key without its kind is asked as given (code may count under it), with a hint at what requests use. */
    void aKeyWithoutItsKindGetsAHint() throws Exception {
        JsonObject bare = lookup("api", "alice", null);
        assertEquals(3, bare.getLong("remaining"), bare::toString);
        assertTrue(bare.getString("note", "").contains("'hdr=<the X-User header's value>'"), bare::toString);
    }

    void aPlanIsLookedUpOnItsOwnValues() throws Exception {
        JsonObject gold = lookup("tiered", "carol", "gold");
        assertEquals(10, gold.getLong("capacity"), gold::toString);
        assertEquals(10, gold.getLong("remaining"), gold::toString);
        assertEquals("gold", gold.getString("plan"), gold::toString);
        JsonObject base = lookup("tiered", "carol", "");
        assertEquals(2, base.getLong("capacity"), base::toString);
    }

    void badInputIsAnsweredWithWhatToFix() throws Exception {
        assertError(lookup("nope", "alice", null), "Unknown policy 'nope': the configured policies are api, feed, partner, tiered");
        assertError(devUi.object("reset", Map.of("policy", "nope", "key", "alice")), "Unknown policy 'nope'");
        assertError(lookup("", "alice", null), "Choose a policy: one of api, feed, partner, tiered");
        assertError(lookup("api", " ", null), "Enter a key");
        assertError(devUi.object("reset", Map.of("policy", "api", "key", "")), "Enter a key");
        assertError(lookup("api", "alice", "gold"), "Policy 'api' has no plans: leave the plan empty");
        assertError(lookup("tiered", "alice", "silver"), "Policy 'tiered' has no plan 'silver': its plans are gold");
    }

    JsonObject lookup(String policy, String key, String plan) throws Exception {
        Map<String, Object> params = new HashMap<>();
        params.put("policy", policy);
        params.put("key", key);
        if (plan != null) {
            params.put("plan", plan);
        }
        return devUi.object("lookup", params);
    }

    void request(String user, int status) throws Exception {
        given().header("X-User", user).get(application.toURI().resolve("limited")).then().statusCode(status);
    }

    void feed(String user) throws Exception {
        given().header("X-User", user).get(application.toURI().resolve("limited/feed")).then().statusCode(200);
    }

    static JsonObject row(JsonArray decisions, String policy) {
        for (int i = 0; i < decisions.size(); i++) {
            JsonObject row = decisions.getJsonObject(i);
            if (policy.equals(row.getString("policy"))) {
                return row;
            }
        }
        throw new AssertionError("no row for policy " + policy + " in " + decisions);
    }

    static void assertError(JsonObject answer, String expected) {
        assertTrue(answer.containsKey("error") && answer.getString("error").startsWith(expected),
                () -> "expected an error starting with \"" + expected + "\", got " + answer);
    }

    @Path("/limited")
    public static class Limited {
        @GET
        @RateLimit("api")
        public String get() {
            return "ok";
        }

        @GET
        @Path("feed")
        @RateLimit("feed")
        public String feed() {
            return "ok";
        }
    }
}
