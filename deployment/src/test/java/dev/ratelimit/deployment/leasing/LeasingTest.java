package dev.ratelimit.deployment.leasing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;

/**
 * Quota leasing ({@code lease}) on a real Redis: a hot key is mostly decided from slices, without a Redis call, and a
 * window policy still admits exactly its limit; the headers never report more than is left; a key that cools down gives back
 * what its slice did not use; a reset drops the slice.
 */
class LeasingTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Api.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "leasing-" + System.nanoTime())
            .overrideConfigKey(P + "pages.algorithm", "fixed-window")
            .overrideConfigKey(P + "pages.limit", "200")
            .overrideConfigKey(P + "pages.window", "1h")
            .overrideConfigKey(P + "pages.key", "header:X-Client")
            .overrideConfigKey(P + "pages.lease", "auto")
            .overrideConfigKey(P + "bucket.limit", "1000")
            .overrideConfigKey(P + "bucket.window", "1h")
            .overrideConfigKey(P + "bucket.lease", "50")
            .overrideConfigKey(P + "exact.limit", "1000")
            .overrideConfigKey(P + "exact.window", "1h");

    @Path("/leased")
    public static class Api {
        @GET
        @RateLimit("pages")
        public String pages() {
            return "ok";
        }
    }

    @Inject
    RateLimiter limiter;

    @Inject
    DefaultRateLimiter internals;

    @Test
    void aHotKeyIsDecidedFromSlicesAndAWindowPolicyStillAdmitsExactlyItsLimit() {
        String key = "hot-" + UUID.randomUUID();
        int admitted = 0;
        int fromSlices = 0;
        for (int i = 0; i < 300; i++) {
            RateLimitDecision d = limiter.checkBlocking("pages", key);
            if (d.allowed()) {
                admitted++;
            }
            if (d.source() == Source.LEASE) {
                fromSlices++;
            }
        }
        int fromSlicesSeen = fromSlices;
        assertEquals(200, admitted, "exactly the limit: a window policy's slices never admit beyond it");
        assertTrue(fromSlices >= 100, () -> "most admissions from slices, without a Redis call: " + fromSlicesSeen);
    }

    @Test
    void aPolicyWithoutLeaseNeverDecidesFromASlice() {
        String key = "plain-" + UUID.randomUUID();
        for (int i = 0; i < 100; i++) {
            assertEquals(Source.REDIS, limiter.checkBlocking("exact", key).source());
        }
    }

    @Test
    void theHeadersNeverReportMoreThanIsLeftAndTheLimitHolds() {
        String client = "http-" + UUID.randomUUID();
        for (int i = 0; i < 200; i++) {
            Response r = RestAssured.given().header("X-Client", client).get("/leased");
            assertEquals(200, r.statusCode(), "request " + (i + 1));
            long remaining = Long.parseLong(r.header("X-RateLimit-Remaining"));
            // what is left, slice or not; less by at most a slice (20: a tenth of the limit) while the units an
            // ended slice did not use are on their way back
            long left = 199 - i;
            assertTrue(remaining <= left && remaining >= left - 20,
                    "request " + (i + 1) + " is told " + remaining + " are left, not " + left);
        }
        Response denied = RestAssured.given().header("X-Client", client).get("/leased");
        assertEquals(429, denied.statusCode());
        assertTrue(Long.parseLong(denied.header("Retry-After")) > 0);
    }

    /** Calls {@code bucket} on {@code key} until this instance holds a slice of it; returns how many calls it took. */
    private int heat(String key) {
        int calls = 0;
        while (internals.quotaLeases().unusedUnits() == 0) {
            assertTrue(calls < 500, "no slice after 500 calls");
            assertTrue(limiter.checkBlocking("bucket", key).allowed());
            calls++;
        }
        return calls;
    }

    @Test
    void aKeyThatCoolsDownGivesBackWhatItsSliceDidNotUse() throws InterruptedException {
        String key = "cooling-" + UUID.randomUUID();
        int calls = heat(key);
        long held = internals.quotaLeases().unusedUnits();
        PolicyDecision whileHeld = limiter.stateBlocking("bucket", key);
        // Redis holds the slice charged (unless its 100 ms ended meanwhile on a slow machine)
        assertTrue(whileHeld.remaining() == 1000 - calls - held || whileHeld.remaining() == 1000 - calls,
                () -> whileHeld.remaining() + " after " + calls + " calls, " + held + " units held");
        // the slice's life is 100 ms and the sweep runs as often: it is given back within a few
        long remaining = 0;
        for (int i = 0; i < 50 && remaining != 1000 - calls; i++) {
            Thread.sleep(20);
            remaining = limiter.stateBlocking("bucket", key).remaining();
        }
        assertEquals(1000 - calls, remaining, "only the calls made stay charged");
    }

    @Test
    void aResetDropsTheSlice() {
        String key = "reset-" + UUID.randomUUID();
        heat(key);
        limiter.resetBlocking("bucket", key);
        assertEquals(0, internals.quotaLeases().unusedUnits(), "no slice survives a reset");
        assertEquals(1000, limiter.stateBlocking("bucket", key).remaining(), "an idle key again");
        RateLimitDecision next = limiter.checkBlocking("bucket", key);
        assertEquals(Source.REDIS, next.source(), "the next call goes to Redis (and, the key still hot, leases anew)");
        assertEquals(1000 - 1 - internals.quotaLeases().unusedUnits(), limiter.stateBlocking("bucket", key).remaining());
    }
}
