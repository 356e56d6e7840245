package dev.ratelimit.runtime.backend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.Policy;

class BackendReplyTest {

    private static Policy policy(String name, long limit, boolean shadow) {
        return new Policy(name, Algorithm.TOKEN_BUCKET, limit, Duration.ofMinutes(1), limit, "ip", shadow,
                FailureMode.LOCAL);
    }

    @Test
    void readsTheScriptsOrder() {
        BackendReply r = BackendReply.ofScriptOrder(new long[] { 0, 1, 7, 0, 900, 0, -3, -1, -5 });
        assertEquals(2, r.size());
        assertFalse(r.allAdmitted());
        assertTrue(r.admitted(0));
        assertEquals(7, r.remaining(0));
        assertEquals(900, r.resetMillis(0));
        assertFalse(r.admitted(1));
        assertEquals(0, r.remaining(1), "a negative remaining reads as none left");
        assertEquals(BackendReply.NEVER, r.retryMillis(1));
        assertEquals(0, r.resetMillis(1));
    }

    @Test
    void refusesAnotherShape() {
        assertThrows(IllegalArgumentException.class, () -> BackendReply.ofScriptOrder(new long[] { 1 }));
        assertThrows(IllegalArgumentException.class, () -> BackendReply.ofScriptOrder(new long[] { 1, 1, 2, 0, 5, 1 }));
    }

    @Test
    void builtAsTheScriptsReply() {
        BackendReply built = BackendReply.builder(2).policy(0, true, 9, 0, 100).policy(1, false, 0, 1200, 6000)
                .denied().build();
        assertArrayEquals(new long[] { 0, 1, 9, 0, 100, 0, 0, 1200, 6000 }, built.toScriptOrder());
        assertEquals(built, BackendReply.ofScriptOrder(built.toScriptOrder()));
        assertTrue(BackendReply.builder(1).policy(0, true, 1, 0, 10).build().allAdmitted(), "admitted until denied");
    }

    @Test
    void theRunSizeIsKeptButIsNotWhatTheReplySays() {
        long[] values = { 1, 1, 4, 0, 3000 };
        BackendReply inARun = BackendReply.ofScriptOrder(values, 7);
        assertEquals(7, inARun.runSize());
        assertEquals(0, BackendReply.ofScriptOrder(values).runSize(), "not known");
        assertEquals(0, inARun.toBuilder().build().runSize(), "a reply built from parts came from no one run");
        assertEquals(BackendReply.ofScriptOrder(values), inARun, "the same answer, however it was sent");
    }

    @Test
    void copiesAnotherReplysPolicy() {
        BackendReply part = BackendReply.ofScriptOrder(new long[] { 0, 0, 0, 700, 700 });
        BackendReply merged = BackendReply.builder(3).policy(0, true, 4, 0, 50).policy(2, part, 0).denied().build();
        assertFalse(merged.admitted(2));
        assertEquals(700, merged.retryMillis(2));
        BackendReply.Builder again = merged.toBuilder();
        again.policy(1, true, 3, 0, 20);
        assertEquals(0, merged.remaining(1), "a builder from a reply leaves the reply as it was");
        assertEquals(3, again.build().remaining(1));
    }

    @Test
    void becomesADecision() {
        Policy api = policy("api", 10, false);
        Policy dark = policy("dark", 2, true);
        RateLimitDecision d = BackendReply.ofScriptOrder(new long[] { 1, 1, 4, 0, 3000, 0, 0, -1, 60_000 })
                .decision(new Policy[] { api, dark }, Source.REDIS);
        assertTrue(d.allowed());
        assertEquals(Source.REDIS, d.source());
        PolicyDecision first = d.policies().get(0);
        assertEquals("api", first.policy());
        assertEquals(4, first.remaining());
        assertEquals(Duration.ofMillis(3000), first.reset());
        PolicyDecision second = d.policies().get(1);
        assertFalse(second.allowed());
        assertTrue(second.shadow());
        assertEquals(Duration.ofMinutes(1), second.retryAfter(), "never admissible: a window's wait");
    }
}
