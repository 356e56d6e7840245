package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/**
 * The demo's partner console ({@code partner}: gcra, 5 per minute per API key, {@code overrides=true}): an operator
 * raises one partner's limit, which applies from its next request (the headers say so) and to no other partner, reads
 * it back and clears it; a limit out of range is a 400 naming it; the console is for operators only.
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class PartnerOverridesTest {

    private static Response quote(String apiKey) {
        return RestAssured.given().header("X-Api-Key", apiKey).get("/partner");
    }

    private static RequestSpecification ops() {
        return RestAssured.given().auth().preemptive().basic("ops", "ops-secret");
    }

    @Test
    void anOperatorRaisesOnePartnersLimitLive() {
        String partner = "p-" + UUID.randomUUID();
        String other = "p-" + UUID.randomUUID();
        for (int i = 0; i < 5; i++) {
            assertEquals(200, quote(partner).statusCode());
        }
        assertEquals(429, quote(partner).statusCode());
        assertEquals(204, ops().put("/admin/partners/" + partner + "/override?limit=6000&days=30").statusCode());
        String read = ops().get("/admin/partners/" + partner + "/override").then().statusCode(200).extract().asString();
        assertTrue(read.startsWith("limit=6000, expires="), read);
        // 100 a second from now on (the bucket drains at the new rate): within a few tenths of a second, admitted
        long deadline = System.nanoTime() + 2_000_000_000L;
        Response r = quote(partner);
        while (r.statusCode() == 429 && System.nanoTime() < deadline) {
            r = quote(partner);
        }
        assertEquals(200, r.statusCode());
        assertEquals("6000", r.header("X-RateLimit-Limit"));
        for (int i = 0; i < 5; i++) {
            Response o = quote(other);
            assertEquals(200, o.statusCode());
            assertEquals("5", o.header("X-RateLimit-Limit"));
        }
        assertEquals(429, quote(other).statusCode(), "another partner keeps the policy's 5");
        assertEquals(204, ops().delete("/admin/partners/" + partner + "/override").statusCode());
        assertEquals(404, ops().get("/admin/partners/" + partner + "/override").statusCode());
        assertEquals("5", quote(partner).header("X-RateLimit-Limit"));
    }

    @Test
    void aLimitOutOfRangeIsRefusedAndTheConsoleIsForOperators() {
        Response bad = ops().put("/admin/partners/x/override?limit=0");
        assertEquals(400, bad.statusCode());
        assertTrue(bad.asString().contains("limit 0"), bad.asString());
        assertEquals(401, RestAssured.given().put("/admin/partners/x/override?limit=10").statusCode());
        assertEquals(403, RestAssured.given().auth().preemptive().basic("alice", "alice-secret")
                .put("/admin/partners/x/override?limit=10").statusCode());
    }
}
