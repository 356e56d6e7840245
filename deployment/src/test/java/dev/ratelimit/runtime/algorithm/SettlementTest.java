package dev.ratelimit.runtime.algorithm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.runtime.algorithm.ReferenceModel.Limit;
import dev.ratelimit.runtime.algorithm.ScriptRunner.Call;
import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.test.redis.RedisFixture;

/**
 * Settlements named by what they once got wrong or could: each on Redis, in process and in the model.
 */
class SettlementTest {

    private static ScriptRunner redis;

    @BeforeAll
    static void load() {
        redis = new ScriptRunner(() -> RedisFixture.shared().client());
    }

    @AfterAll
    static void close() {
        redis.close();
    }

    /**
     * A sliding log names its entries after their time and the set's size; a refund shrinks the set, so a charge at
     * the same instant afterwards would have been given the name of an entry still there (ZADD then only rescored it,
     * and the log held a unit fewer than it admitted: a fourth unit of three admitted).
     */
    @Test
    void aChargeAfterARefundAtTheSameInstantLogsEveryUnit() {
        Limit log = new Limit("sliding-window-log", 3, 1_000_000, 3, false);
        Limit[] limits = { log };
        String key = Engine.prefix() + ":settle:{" + Engine.newIdentity() + "}:log";
        long t = Scenarios.EPOCH;
        ReferenceModel model = new ReferenceModel();
        LocalBackend local = new LocalBackend();
        Policy[] policies = { EngineMatchesModelTest.policy("log", log) };
        String[] localKey = { "log" };
        List<long[]> steps = List.of(
                play(model, local, policies, localKey, limits, key, "R", 2, t), // entries t:1, t:2
                play(model, local, policies, localKey, limits, key, "0", 1, t), // t:3
                play(model, local, policies, localKey, limits, key, "S" + t, 1, t), // one of t's entries leaves
                play(model, local, policies, localKey, limits, key, "0", 1, t), // a third entry again
                play(model, local, policies, localKey, limits, key, "0", 1, t)); // a fourth: denied
        assertEquals(0, steps.get(4)[0], "three units in the window: the fourth is denied");
    }

    private static long[] play(ReferenceModel model, LocalBackend local, Policy[] policies, String[] localKey,
            Limit[] limits, String key, String mode, long cost, long t) {
        long[] costs = { cost };
        long[] expected;
        long[] fromRedis;
        long[] fromLocal;
        if (mode.equals("R")) {
            expected = model.reserve(limits, localKey, costs, t, null);
            fromRedis = redis.single(Call.reservation(limits, new String[] { key }, costs, t, null));
            fromLocal = local.reserveNow(policies, localKey, costs, t, null).toScriptOrder();
        } else if (mode.startsWith("S")) {
            long at = Long.parseLong(mode.substring(1));
            expected = model.settle(limits, localKey, costs, at, t);
            fromRedis = redis.single(Call.settlement(limits, new String[] { key }, costs, at, t));
            fromLocal = local.settleNow(policies, localKey, costs, new long[] { at }, t).toScriptOrder();
        } else {
            expected = model.decide(limits, localKey, costs, t, false);
            fromRedis = redis.single(new Call(limits, new String[] { key }, costs, t, false));
            fromLocal = local.decideNow(policies, localKey, costs, t, false).toScriptOrder();
        }
        assertArrayEquals(expected, fromRedis, () -> mode + " on Redis");
        assertArrayEquals(expected, fromLocal, () -> mode + " in process");
        return expected;
    }

}
