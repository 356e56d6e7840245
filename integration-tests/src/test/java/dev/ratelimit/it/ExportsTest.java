package dev.ratelimit.it;

import static dev.ratelimit.it.RateLimitHeaders.assertPolicy;
import static dev.ratelimit.it.RateLimitHeaders.retryAfter;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;

/**
 * Exports, decided by the application's own code through {@code RateLimiter} ({@code ExportResource}): each page is
 * a unit of the user's {@code exports} (10 per hour, 20 on the premium plan, carol's) and of the site's
 * {@code exports-site} (25 per hour), both or neither. A denial thrown as {@code RateLimitExceededException} is the
 * extension's 429. The in-process cache of recent denials outlives a FLUSHALL, so the site's denial costs more than
 * any export of the other test (a cached denial answers only as costly a check).
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class ExportsTest {

    @BeforeEach
    void idle() {
        RedisState.flush();
    }

    private static Response export(String user, int pages) {
        return RestAssured.given().auth().preemptive().basic(user, user + "-secret").queryParam("pages", pages)
                .post("/exports");
    }

    @Test
    void aUserExportsTheirPagesAndADenialChargesNothing() {
        assertEquals("alice: 4 pages exported", export("alice", 4).then().statusCode(200).extract().asString());
        export("alice", 4).then().statusCode(200);
        Response denied = export("alice", 4);
        assertEquals(429, denied.statusCode(), denied::asString);
        assertPolicy(denied, "exports", 10, 3600);
        retryAfter(denied);
        export("alice", 2).then().statusCode(200); // the denied 4 were not taken
        export("alice", 1).then().statusCode(429);
    }

    @Test
    void premiumUsersExportOnTheirPlanWithinTheSitesBudget() {
        export("carol", 10).then().statusCode(200);
        export("carol", 10).then().statusCode(200); // 20: beyond the base plan's 10, within premium's 20
        // bob has his 10, the site only 5: all-or-nothing, so neither is charged
        Response site = export("bob", 10);
        assertEquals(429, site.statusCode(), site::asString);
        assertPolicy(site, "exports-site", 25, 3600);
        export("bob", 5).then().statusCode(200); // the site's last 5: the denied 10 took none of them
    }
}
