package dev.ratelimit.runtime.leasing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.backend.BackendReply;
import dev.ratelimit.runtime.policy.CountedOutcomes;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.Policy;

/** When a key leases, how large its slices are, and what ends them; on a clock of the test's. */
class QuotaLeasesTest {

    private final long[] now = { 1_000_000_000L };
    private final QuotaLeases leases = new QuotaLeases(100, () -> now[0]);

    private static Policy policy(Algorithm algorithm, long lease, boolean shadow) {
        return new Policy("p", algorithm, 1000, Duration.ofSeconds(1), 1000, "global", shadow, FailureMode.FAIL_CLOSED,
                java.util.List.of(), java.util.List.of(), Duration.ZERO, CountedOutcomes.ALL, false, lease);
    }

    private static BackendReply admitted(long remaining, long chargedAt) {
        return BackendReply.builder(1).policy(0, true, remaining, 0, 10).chargedAt(chargedAt).build();
    }

    /** Calls {@code p} on {@code k} until it asks a slice; returns its size. */
    private long heat(Policy p) {
        for (int i = 0; i < 100; i++) {
            long slice = leases.ask(p, "k", 1).slice();
            if (slice > 0) {
                return slice;
            }
        }
        throw new AssertionError("no slice after 100 calls");
    }

    @Test
    void aColdKeyIsDecidedAloneAndAHotOneLeasesWhatItUses() {
        Policy p = policy(Algorithm.TOKEN_BUCKET, Policy.LEASE_AUTO, false);
        for (int i = 0; i < 7; i++) {
            assertEquals(0, leases.ask(p, "k", 1).slice(), "fewer than 8 units within 100 ms: alone");
        }
        assertEquals(8, leases.ask(p, "k", 1).slice(), "8 calls within 100 ms: a slice of what it used");
        assertEquals(0, leases.ask(p, "k", 1).slice(), "asking: the others go alone meanwhile");
        assertNotNull(leases.granted(p, "k", 8, 1, admitted(900, 5_000_000), now[0]));
        QuotaLeases.Ask fromSlice = leases.ask(p, "k", 1);
        assertNotNull(fromSlice.decided());
        assertEquals(906, fromSlice.decided().remaining(), "Redis's 900 and the 6 left in the slice");
        assertEquals(100, p.leaseMost(), "auto: a tenth of the capacity");
    }

    @Test
    void aSliceAskedForAndNeverAnsweredStopsHoldingTheKeyBackAfterAWhile() {
        Policy p = policy(Algorithm.TOKEN_BUCKET, Policy.LEASE_AUTO, false);
        assertTrue(heat(p) > 0);
        now[0] += QuotaLeases.ASKING_NANOS - 1;
        for (int i = 0; i < 20; i++) {
            assertEquals(0, leases.ask(p, "k", 1).slice(), "hot again, but still asking");
        }
        now[0] += 2;
        assertTrue(leases.ask(p, "k", 1).slice() > 0, "given up on: the key leases again");
    }

    @Test
    void aShadowPolicyThatWouldDenyGrantsNoSlice() {
        Policy p = policy(Algorithm.TOKEN_BUCKET, Policy.LEASE_AUTO, true);
        long slice = heat(p);
        BackendReply wouldDeny = BackendReply.builder(1).policy(0, false, 0, 100, 100).build();
        assertNull(leases.granted(p, "k", slice, 1, wouldDeny, now[0]), "nothing was charged: no slice");
        assertEquals(0, leases.unusedUnits());
    }

    @Test
    void aFixedWindowSliceEndsWithItsWindow() {
        Policy p = policy(Algorithm.FIXED_WINDOW, 50, false);
        for (int i = 0; i < 20; i++) {
            leases.ask(p, "k", 1); // the eighth asks a slice of 8, which fails (no reply): the key is hot, 20 calls
        }
        leases.granted(p, "k", 8, 1, null, now[0]);
        long slice = leases.ask(p, "k", 1).slice();
        assertEquals(21, slice, "what it used over the last 100 ms");
        // charged 30 ms before its window (1 s, on Redis's clock) ends
        long chargedAt = 7_000_000 - 30_000;
        assertNotNull(leases.granted(p, "k", slice, 1, admitted(900, chargedAt), now[0]));
        now[0] += 29_000_000;
        assertNotNull(leases.ask(p, "k", 1).decided(), "29 ms later: still in its window");
        now[0] += 1_000_000;
        QuotaLeases.Ask after = leases.ask(p, "k", 1);
        assertNull(after.decided(), "30 ms later: the window ended, and so did the slice");
        assertEquals(slice - 2, after.ending().unused(), "what it did not use goes back");
        assertEquals(chargedAt, after.ending().chargedAtMicros());
    }
}
