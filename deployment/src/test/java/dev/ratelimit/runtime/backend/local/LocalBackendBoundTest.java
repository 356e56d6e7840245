package dev.ratelimit.runtime.backend.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.Policy;

/**
 * The in-process limiter holds state for a bounded number of keys: a flood of one-off keys within
 * one window (a client choosing a new identity per request) neither grows it past its bound nor
 * makes it forget the clients that used their limit.
 */
class LocalBackendBoundTest {

    private static final long NOW = 1_700_000_000_000_000L;

    private static long[] decide(LocalBackend backend, Policy p, String key, long now) {
        // slots of a concurrency policy are held (never released here), named after the call
        return backend.decideNow(new Policy[] { p }, new String[] { key }, new long[] { 1 }, now, false, "L" + now)
                .toScriptOrder();
    }

    @Test
    void aFloodOfOneOffKeysStaysWithinTheBoundAndKeepsTheKeysAtTheirLimit() {
        for (Algorithm algorithm : Algorithm.values()) {
            Policy p = new Policy("api", algorithm, 10, Duration.ofMinutes(1), 10, "ip", false, FailureMode.LOCAL);
            LocalBackend backend = new LocalBackend(1000);
            long now = NOW;
            for (int i = 0; i < 10; i++) {
                assertEquals(1, decide(backend, p, "rl:{abuser}:api", now++)[0], algorithm + ": request " + i);
            }
            for (int i = 0; i < 5; i++) {
                decide(backend, p, "rl:{regular}:api", now++);
            }
            for (int i = 0; i < 20_000; i++) {
                assertEquals(1, decide(backend, p, "rl:{oneoff" + i + "}:api", now++)[0]);
                assertTrue(backend.size() <= 1000, algorithm + ": " + backend.size() + " keys after " + i);
            }
            // still within the window (20 ms of a minute have passed): both are remembered
            assertEquals(0, decide(backend, p, "rl:{abuser}:api", now++)[0], algorithm + ": the abuser was forgotten");
            long[] regular = decide(backend, p, "rl:{regular}:api", now++);
            assertEquals(1, regular[0], algorithm.toString());
            assertEquals(4, regular[2], algorithm + ": the regular client's usage was forgotten");
        }
    }

    @Test
    void aClientDeniedStaysHeldWhenEveryOneOffKeyUsesItsWholeLimit() {
        // limit 1: every one-off key uses all of its limit, as much as the client at its limit
        Policy p = new Policy("api", Algorithm.TOKEN_BUCKET, 1, Duration.ofMinutes(1), 1, "ip", false, FailureMode.LOCAL);
        LocalBackend backend = new LocalBackend(100);
        long now = NOW;
        assertEquals(1, decide(backend, p, "rl:{abuser}:api", now++)[0]);
        assertEquals(0, decide(backend, p, "rl:{abuser}:api", now++)[0]);
        for (int i = 0; i < 5_000; i++) {
            decide(backend, p, "rl:{oneoff" + i + "}:api", now++);
            assertTrue(backend.size() <= 100, backend.size() + " keys after " + i);
        }
        assertEquals(0, decide(backend, p, "rl:{abuser}:api", now++)[0], "the denied client was forgotten");
    }

    @Test
    void aBoundOfOneKeyStillLimitsThatKey() {
        Policy p = new Policy("api", Algorithm.FIXED_WINDOW, 2, Duration.ofMinutes(1), 2, "ip", false, FailureMode.LOCAL);
        LocalBackend backend = new LocalBackend(1);
        assertEquals(1, decide(backend, p, "rl:{alice}:api", NOW)[0]);
        assertEquals(1, decide(backend, p, "rl:{alice}:api", NOW + 1)[0]);
        assertEquals(0, decide(backend, p, "rl:{alice}:api", NOW + 2)[0]);
        assertEquals(1, backend.size());
    }

    @Test
    void expiredStateMakesRoomFirst() {
        Policy p = new Policy("api", Algorithm.FIXED_WINDOW, 10, Duration.ofSeconds(1), 10, "ip", false,
                FailureMode.LOCAL);
        LocalBackend backend = new LocalBackend(100);
        for (int i = 0; i < 100; i++) {
            decide(backend, p, "rl:{old" + i + "}:api", NOW);
        }
        assertEquals(100, backend.size());
        // two windows later every old key has expired: the new key takes the limiter over its bound, which sweeps them all
        decide(backend, p, "rl:{new}:api", NOW + 2_000_000);
        assertEquals(1, backend.size());
    }
}
