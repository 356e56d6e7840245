package dev.ratelimit.runtime.algorithm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.runtime.algorithm.ReferenceModel.Limit;
import dev.ratelimit.runtime.algorithm.Scenarios.Change;
import dev.ratelimit.runtime.algorithm.Scenarios.Scenario;
import dev.ratelimit.runtime.algorithm.Scenarios.Step;

/**
 * Counterexamples the property search found once overrides changed a live key's values, kept by name. Each is played
 * on the model, on Redis (alone, in batch runs, as functions) and in process ({@link EngineMatchesModelTest#play}),
 * and the values are pinned here.
 */
class OverridesOnALiveKeyTest {

    @BeforeAll
    static void scripts() {
        EngineMatchesModelTest.loadScripts();
    }

    @AfterAll
    static void close() {
        EngineMatchesModelTest.close();
    }

    /**
     * A bucket's time is kept in 1/limit µs: written under a limit of 88, read under 3,000,000 it is rounded up to the
     * new grid (never earlier than written), which at 3,000 units per µs is 2 units fewer than the exact time leaves:
     * 2,888,760 remaining, not 2,888,762. The model read the exact time until it was taught the scripts' rounding.
     */
    @Test
    void aBucketsTimeWrittenUnderAnotherLimitIsRoundedUpToTheNewLimitsGrid() {
        Limit bucket = new Limit("token-bucket", 1144, 1000, 1144, false, 0, true);
        Scenario s = new Scenario(List.of(bucket), 0, List.of(
                new Step(0, new long[] { 1 }, false, false, -1, false, -1, null, 0),
                new Step(0, new long[] { 1 }, false, false, -1, false, -1, new Change(0, false, 88, 3186, 0, 0), 0),
                new Step(0, new long[] { 1 }, false, false, -1, false, -1, new Change(0, false, 3_000_000, 0, 0, 6), 0)));
        EngineMatchesModelTest.play(s);
        ReferenceModel model = new ReferenceModel();
        String[] key = { "k" };
        Limit[] limits = { bucket };
        long now = Scenarios.EPOCH;
        model.decide(limits, key, new long[] { 1 }, now, false);
        model.override("k", new long[] { 88, 3186, 0, 0 });
        model.decide(limits, key, new long[] { 1 }, now, false);
        model.override("k", new long[] { 3_000_000, 0, 0, now + 6 });
        assertArrayEquals(new long[] { 1, 1, 2_888_760, 0, 1, 3_000_000, 1000 },
                model.decide(limits, key, new long[] { 1 }, now, false));
    }
}
