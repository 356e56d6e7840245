package dev.ratelimit.deployment.settle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Reservation;
import io.quarkus.test.QuarkusUnitTest;

/**
 * {@link RateLimiter#reserve}: a reservation charges its estimate, and its settlement gives back what the work did not
 * use, or charges what it used beyond it, on every rate algorithm (capacity 10 per hour); once; never above capacity;
 * into debt of at most one capacity; several
 * policies settled by name; a denied reservation has nothing to settle; on the backend of the subclass.
 */
abstract class ReservationScenarios {

    static final String[] ALGORITHMS = { "fixed-window", "sliding-window-log", "sliding-window-counter",
            "token-bucket", "leaky-bucket", "gcra" };

    static QuarkusUnitTest application() {
        QuarkusUnitTest t = new QuarkusUnitTest()
                .withApplicationRoot(jar -> jar.addClasses(ReservationScenarios.class))
                .overrideConfigKey("quarkus.ratelimit.key-prefix", "reserve-" + System.nanoTime())
                .overrideConfigKey("quarkus.ratelimit.policies.requests.limit", "100")
                .overrideConfigKey("quarkus.ratelimit.policies.requests.window", "1h");
        for (String a : ALGORITHMS) {
            t.overrideConfigKey("quarkus.ratelimit.policies." + a + ".algorithm", a)
                    .overrideConfigKey("quarkus.ratelimit.policies." + a + ".limit", "10")
                    .overrideConfigKey("quarkus.ratelimit.policies." + a + ".window", "1h");
        }
        return t;
    }

    @Inject
    RateLimiter limiter;

    @ParameterizedTest
    @ValueSource(strings = { "fixed-window", "sliding-window-log", "sliding-window-counter", "token-bucket",
            "leaky-bucket", "gcra" })
    void aSettlementGivesBackWhatTheWorkDidNotUse(String policy) {
        String key = "k-" + UUID.randomUUID();
        Reservation r = limiter.reserveBlocking(RateLimitCheck.of(policy, key).cost(8));
        assertTrue(r.allowed(), r.decision()::toString);
        assertEquals(2, r.decision().remaining(), "charged at the estimate");
        assertFalse(limiter.checkBlocking(policy, key, 3).allowed(), "only 2 left while reserved");
        r.settle(3).await().indefinitely();
        assertTrue(r.settled());
        assertEquals(7, limiter.stateBlocking(policy, key).remaining(), "8 reserved, 3 used: 5 given back");
        r.settle(0).await().indefinitely();
        assertEquals(7, limiter.stateBlocking(policy, key).remaining(), "settled once");
        assertThrows(IllegalArgumentException.class, () -> r.settle(-1), "no negative cost");
        assertTrue(limiter.checkBlocking(policy, key, 7).allowed());
        assertFalse(limiter.checkBlocking(policy, key).allowed(), "never more than the capacity came back");
    }

    @ParameterizedTest
    @ValueSource(strings = { "fixed-window", "sliding-window-log", "sliding-window-counter", "token-bucket",
            "leaky-bucket", "gcra" })
    void aDebitPutsTheKeyIntoDebtOfAtMostOneCapacity(String policy) {
        String key = "k-" + UUID.randomUUID();
        Reservation r = limiter.reserveBlocking(RateLimitCheck.of(policy, key).cost(2));
        r.settle(50).await().indefinitely(); // 48 more than reserved: capped at one capacity of debt
        var state = limiter.stateBlocking(policy, key);
        assertFalse(state.allowed(), () -> "in debt: " + state);
        assertEquals(0, state.remaining(), state::toString);
        assertFalse(limiter.checkBlocking(policy, key).allowed(), "denied until the debt is paid off");
        limiter.resetBlocking(policy, key);
        assertTrue(limiter.checkBlocking(policy, key, 10).allowed(), "a reset forgives the debt");
    }

    @ParameterizedTest
    @ValueSource(strings = { "fixed-window", "sliding-window-log", "token-bucket" })
    void aRefundNeverLiftsAKeyAboveItsCapacity(String policy) {
        String key = "k-" + UUID.randomUUID();
        Reservation r = limiter.reserveBlocking(RateLimitCheck.of(policy, key).cost(4));
        // the key is reset meanwhile: the refund has nothing left to give back to
        limiter.resetBlocking(policy, key);
        r.cancel().await().indefinitely();
        assertEquals(10, limiter.stateBlocking(policy, key).remaining(), "full, not 14");
        assertTrue(limiter.checkBlocking(policy, key, 10).allowed());
        assertFalse(limiter.checkBlocking(policy, key).allowed());
    }

    @Test
    void severalPoliciesAreSettledByName() {
        String key = "k-" + UUID.randomUUID();
        Reservation r = limiter.reserveBlocking(RateLimitCheck.of("token-bucket", key).cost(6),
                RateLimitCheck.of("requests", key));
        assertTrue(r.allowed());
        assertThrows(IllegalStateException.class, () -> r.settle(2), "two checks: name them");
        assertThrows(IllegalArgumentException.class, () -> r.settle(Map.of("gcra", 1L)), "not one of its policies");
        r.settle(Map.of("token-bucket", 2L)).await().indefinitely();
        assertEquals(8, limiter.stateBlocking("token-bucket", key).remaining(), "6 reserved, 2 used");
        assertEquals(99, limiter.stateBlocking("requests", key).remaining(), "the request itself stays counted");
    }

    @Test
    void aDeniedReservationHasNothingToSettle() {
        String key = "k-" + UUID.randomUUID();
        assertTrue(limiter.checkBlocking("fixed-window", key, 9).allowed());
        Reservation r = limiter.reserveBlocking(RateLimitCheck.of("fixed-window", key).cost(5));
        assertFalse(r.allowed());
        r.settle(0).await().indefinitely();
        assertEquals(1, limiter.stateBlocking("fixed-window", key).remaining(), "nothing was charged, nothing given");
    }
}
