package dev.ratelimit.runtime.algorithm;

import static dev.ratelimit.runtime.algorithm.Engine.BASE;
import static dev.ratelimit.runtime.algorithm.Engine.S;
import static dev.ratelimit.runtime.algorithm.Engine.show;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import jakarta.inject.Inject;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.backend.redis.RedisBackend;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The scenario table against Redis, through the {@link RedisBackend} the extension builds (build-time scripts, the
 * Quarkus Redis client). Every call with an explicit time is also made on a {@link LocalBackend} with the same
 * inputs, and the two reply arrays must be identical: the backends are interchangeable, number for number.
 */
class RedisAlgorithmScenariosTest extends AlgorithmScenarios {

    private static final Logger LOG = Logger.getLogger(RedisAlgorithmScenariosTest.class);

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(AlgorithmScenarios.class, Engine.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false");

    @Inject
    DefaultRateLimiter limiter;

    private final LocalBackend mirror = new LocalBackend();

    @Override
    protected long[] decide(Policy[] policies, String[] keys, long[] costs, long nowMicros, boolean dryRun) {
        long[] reply = redis(policies, keys, costs, nowMicros, dryRun);
        if (nowMicros != RateLimitBackend.BACKEND_CLOCK) {
            long[] local = mirror.decideNow(policies, keys, costs, nowMicros, dryRun).toScriptOrder();
            assertArrayEquals(local, reply, () -> "local " + show(local) + " vs redis " + show(reply) + " for "
                    + describe(policies, costs, nowMicros, dryRun));
        }
        return reply;
    }

    @Override
    protected String backendName() {
        return "redis";
    }

    private long[] redis(Policy[] policies, String[] keys, long[] costs, long nowMicros, boolean dryRun) {
        RateLimitBackend backend = limiter.backend();
        assertInstanceOf(RedisBackend.class, backend, "with quarkus.redis.hosts set the limiter decides in Redis");
        return backend.decide(policies, keys, costs, nowMicros, dryRun).await().atMost(Duration.ofSeconds(10)).toScriptOrder();
    }

    /**
     * Random multi-policy requests over all seven algorithms (mixed and single-algorithm scripts, shadow policies,
     * dry runs, costs up to above capacity, fractional unit times) on both backends, compared array for array.
     */
    @Test
    void randomWorkloadsGiveIdenticalRepliesOnBothBackends() {
        LocalBackend local = new LocalBackend();
        Random random = new Random(2026);
        List<Policy> pool = new ArrayList<>();
        for (Algorithm a : Algorithm.values()) {
            // 7 per 30 s: a unit is 4.285714... s, so the arithmetic is not on round numbers
            Policy p = Engine.policy(a.configName(), a, 7, Duration.ofSeconds(30), a.usesBurst() ? 3 : 7);
            pool.add(p);
            pool.add(Engine.shadow(Engine.policy(a.configName() + "-shadow", a, 7, Duration.ofSeconds(30), 5)));
        }
        String[] identities = { Engine.newIdentity(), Engine.newIdentity() };
        long t = BASE + 3 * S;
        int compared = 0;
        int denied = 0;
        List<Object[]> calls = new ArrayList<>(); // each step's policies, keys and costs, to release its slots
        for (int step = 0; step < 400; step++) {
            // whole seconds: keys never outlive their Redis TTL (which runs on real time) while still relevant
            t += random.nextInt(4) * S;
            List<Policy> shuffled = new ArrayList<>(pool);
            Collections.shuffle(shuffled, random);
            int n = 1 + random.nextInt(3);
            Policy[] ps = shuffled.subList(0, n).toArray(new Policy[0]);
            String[] keys = new String[n];
            long[] costs = new long[n];
            for (int i = 0; i < n; i++) {
                keys[i] = RedisKeys.key(Engine.prefix(), ps[i], identities[random.nextInt(2)]);
                costs[i] = random.nextInt(20) == 0 ? ps[i].capacity() + 1 : 1 + random.nextInt((int) ps[i].capacity());
            }
            boolean dry = random.nextInt(10) == 0;
            // concurrency slots are named after the step; every fourth step frees an earlier step's
            String lease = "W" + step;
            if (step % 4 == 3) {
                int e = random.nextInt(step);
                Object[] call = calls.get(e);
                limiter.backend().release((Policy[]) call[0], (String[]) call[1], (long[]) call[2], "W" + e).await()
                        .atMost(Duration.ofSeconds(10));
                local.releaseNow((Policy[]) call[0], (String[]) call[1], "W" + e);
            }
            calls.add(new Object[] { ps, keys, costs });
            long[] fromRedis = limiter.backend().decide(ps, keys, costs, t, dry, lease).await()
                    .atMost(Duration.ofSeconds(10)).toScriptOrder();
            long[] fromLocal = local.decideNow(ps, keys, costs, t, dry, lease).toScriptOrder();
            long now = t;
            assertArrayEquals(fromLocal, fromRedis, () -> "step: local " + show(fromLocal) + " vs redis "
                    + show(fromRedis) + " for " + describe(ps, costs, now, dry));
            compared++;
            if (fromRedis[0] == 0) {
                denied++;
            }
        }
        LOG.infof("%d random decisions identical on both backends (%d denied)", compared, denied);
        assertEquals(400, compared);
    }

    private static String describe(Policy[] policies, long[] costs, long now, boolean dryRun) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < policies.length; i++) {
            Policy p = policies[i];
            b.append(p.algorithm().configName()).append('(').append(p.limit()).append('/').append(p.window())
                    .append(" burst ").append(p.burst()).append(p.shadow() ? " shadow" : "").append(" cost ")
                    .append(costs[i]).append(") ");
        }
        return b.append("at BASE+").append(now - BASE).append(" µs").append(dryRun ? " dry-run" : "").toString();
    }
}
