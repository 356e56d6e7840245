package dev.ratelimit.runtime.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.backend.RedisKeysTest;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.Policy;

/**
 * The keys the limiter keeps for recent calls are the keys {@link RedisKeys} builds, whatever falls on the same slot:
 * policies of one name on both sides of the concurrency suffix, one identity under two policies, identities that are
 * hashed, plans (policies of one name with other values), and many threads filling the table at once.
 */
class BuiltKeysTest {

    private static final String PREFIX = "rl";

    private static Policy policy(String name, Algorithm algorithm, long limit) {
        return new Policy(name, algorithm, limit, Duration.ofSeconds(1), limit, "global", false,
                FailureMode.FAIL_OPEN);
    }

    private final List<Policy> policies = List.of(policy("api", Algorithm.TOKEN_BUCKET, 10),
            policy("api", Algorithm.CONCURRENCY, 10), policy("api", Algorithm.TOKEN_BUCKET, 1000),
            policy("login", Algorithm.FIXED_WINDOW, 5), policy("a", Algorithm.GCRA, 5));

    private List<String> identities() {
        List<String> ids = new ArrayList<>(RedisKeysTest.hostileIdentities());
        for (int i = 0; i < 5000; i++) {
            ids.add("user-" + i); // five times the slots: every slot met by several pairs
        }
        ids.add("2001:db8::1");
        return ids;
    }

    @Test
    void everyKeyIsTheOneRedisKeysBuildsWhicheverPairsShareItsSlot() {
        BuiltKeys keys = new BuiltKeys(PREFIX);
        List<String> ids = identities();
        Random random = new Random(7);
        for (int round = 0; round < 20_000; round++) {
            Policy p = policies.get(random.nextInt(policies.size()));
            // a new String of the same text, as a request's header gives it: found by text, not by identity
            String id = new String(ids.get(random.nextInt(random.nextBoolean() ? 40 : ids.size())));
            String expected = RedisKeys.key(PREFIX, p, id);
            assertEquals(expected, keys.key(p, id), () -> p + " " + id);
            String[] alone = keys.alone(p, id);
            assertEquals(1, alone.length);
            assertEquals(expected, alone[0]);
        }
    }

    @Test
    void aPairAskedAgainGetsTheSameArray() {
        BuiltKeys keys = new BuiltKeys(PREFIX);
        Policy api = policies.get(0);
        String[] first = keys.alone(api, "2001:db8::1");
        assertSame(first, keys.alone(api, new String("2001:db8::1")));
        // a plan of the same policy (same name, other values) has the same key
        assertSame(first, keys.alone(policies.get(2), "2001:db8::1"));
        // the concurrency policy of that name does not
        assertEquals(RedisKeys.key(PREFIX, policies.get(1), "2001:db8::1"), keys.key(policies.get(1), "2001:db8::1"));
    }

    @Test
    void threadsFillingTheTableAtOnceEachGetTheirOwnKey() throws Exception {
        BuiltKeys keys = new BuiltKeys(PREFIX);
        List<String> ids = identities();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int seed = t;
                done.add(pool.submit(() -> {
                    Random random = new Random(seed);
                    for (int i = 0; i < 50_000; i++) {
                        Policy p = policies.get(random.nextInt(policies.size()));
                        String id = ids.get(random.nextInt(ids.size()));
                        assertEquals(RedisKeys.key(PREFIX, p, id), keys.key(p, id));
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
