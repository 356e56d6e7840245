package dev.ratelimit.deployment.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * {@code quarkus.ratelimit.http.partition-key=true}: each {@code RateLimit} member carries {@code pk}, a byte sequence
 * naming the quota the request was counted against: the same for one client, another for another client, one per
 * policy, and on denials too.
 */
class PartitionKeyTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Keyed.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.http.partition-key", "true")
            .overrideConfigKey("quarkus.ratelimit.policies.per-client.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.per-client.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.per-client.key", "header:X-Client")
            .overrideConfigKey("quarkus.ratelimit.policies.everyone.limit", "100")
            .overrideConfigKey("quarkus.ratelimit.policies.everyone.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.everyone.key", "global");

    @Path("/keyed")
    public static class Keyed {
        @GET
        @RateLimit("per-client")
        @RateLimit("everyone")
        public String get() {
            return "ok";
        }
    }

    private static final Pattern MEMBER = Pattern.compile("\"([^\"]+)\";r=\\d+;t=\\d+;pk=(:[A-Za-z0-9+/]{12}:)");

    /** The pk of each policy, in order, from a RateLimit field. */
    private static String[] keys(String field) {
        String[] members = field.split(", ");
        String[] pk = new String[members.length];
        for (int i = 0; i < members.length; i++) {
            Matcher m = MEMBER.matcher(members[i]);
            assertTrue(m.matches(), () -> "not a member with pk: " + field);
            pk[i] = m.group(2);
        }
        return pk;
    }

    private static String rateLimit(String client, int status) {
        return RestAssured.given().header("X-Client", client).get("/keyed").then().statusCode(status).extract()
                .header("RateLimit");
    }

    @Test
    void eachMemberNamesItsQuota() {
        String[] alice = keys(rateLimit("alice", 200));
        String[] again = keys(rateLimit("alice", 200));
        String[] bob = keys(rateLimit("bob", 200));
        assertEquals(2, alice.length);
        assertEquals(alice[0], again[0], "one client, one quota");
        assertNotEquals(alice[0], bob[0], "another client, another quota");
        assertEquals(alice[1], bob[1], "the global quota is shared");
        assertNotEquals(alice[0], alice[1]);
        String[] denied = keys(rateLimit("alice", 429));
        assertEquals(alice[0], denied[0], "a denial names the quota too");
    }
}
