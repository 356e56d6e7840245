package dev.ratelimit.runtime.backend.redis.script;

import static dev.ratelimit.runtime.algorithm.Engine.BASE;
import static dev.ratelimit.runtime.algorithm.Engine.S;
import static dev.ratelimit.runtime.algorithm.Engine.all;
import static dev.ratelimit.runtime.algorithm.Engine.remaining;
import static dev.ratelimit.runtime.algorithm.Engine.show;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import jakarta.inject.Inject;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.algorithm.Engine;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.redis.RedisBackend;
import dev.ratelimit.runtime.backend.redis.transport.LuaScriptExecutor;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.test.redis.RedisFixture;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;

/**
 * The executor's EVALSHA / NOSCRIPT / EVAL path against a real server: the recorded SHAs are the ones Redis
 * computes, the steady state costs no EVAL, and losing the script cache ({@code SCRIPT FLUSH}) or the whole server
 * (a restart) is survived without the caller noticing. The application here runs its decisions as scripts
 * ({@code quarkus.ratelimit.redis.functions=false}, and what a Redis without functions does).
 */
class ScriptCacheAndRestartTest {

    private static final Logger LOG = Logger.getLogger(ScriptCacheAndRestartTest.class);

    @RegisterExtension
    static final QuarkusUnitTest TEST = Engine.onSharedRedis()
            // decisions as scripts: the function library's path has FunctionLibraryTest
            .overrideConfigKey("quarkus.ratelimit.redis.functions", "false");

    @Inject
    DefaultRateLimiter limiter;

    @Inject
    LuaScriptRegistry scripts;

    @Inject
    Vertx vertx;

    private final Policy policy = Engine.policy("api", Algorithm.TOKEN_BUCKET, 10, Duration.ofMinutes(1), 10);

    @Test
    void recordedShasAreWhatRedisComputes() {
        // a wrong SHA would not fail anything visibly: every call would silently pay NOSCRIPT + EVAL
        assertTrue(scripts.all().size() >= 14, "decide, decide-batch and one of each per algorithm");
        try (RespClient client = RedisFixture.shared().client()) {
            for (LuaScript script : scripts.all()) {
                assertEquals(script.sha(), client.callString("SCRIPT", "LOAD", script.body()), script.name());
            }
        }
    }

    @Test
    void scriptFlushIsSurvivedByFallingBackToEval() {
        String key = Engine.newKey("api");
        LuaScript script = scripts.forAlgorithm(Algorithm.TOKEN_BUCKET);
        try (RespClient client = RedisFixture.shared().client()) {
            assertEquals(9, remaining(decide(key, BASE), 0));
            // steady state: EVALSHA only
            long evalBefore = Engine.calls(client, "eval");
            long evalshaBefore = Engine.calls(client, "evalsha");
            for (int i = 0; i < 5; i++) {
                decide(key, BASE);
            }
            assertEquals(evalBefore, Engine.calls(client, "eval"), "no EVAL while the script is cached");
            assertEquals(evalshaBefore + 5, Engine.calls(client, "evalsha"));

            client.call("SCRIPT", "FLUSH");
            assertEquals(List.of(0L), client.call("SCRIPT", "EXISTS", script.sha()));
            long[] afterFlush = decide(key, BASE);
            assertTrue(all(afterFlush), show(afterFlush));
            assertEquals(3, remaining(afterFlush, 0), () -> "state and decision unaffected: " + show(afterFlush));
            assertEquals(evalBefore + 1, Engine.calls(client, "eval"), "one EVAL after the flush");
            assertEquals(List.of(1L), client.call("SCRIPT", "EXISTS", script.sha()), "EVAL cached it again");
            assertEquals(2, remaining(decide(key, BASE), 0));
            assertEquals(evalBefore + 1, Engine.calls(client, "eval"), "and EVALSHA works again");
        }
    }

    @Test
    void redisRestartIsSurvived() throws InterruptedException {
        // a dedicated server, always embedded, so this runs whatever the shared Redis is
        RedisServerProcess server = new RedisServerProcess().start();
        Redis client = Redis.createClient(vertx,
                new RedisOptions().setConnectionString(server.uri()).setMaxPoolSize(2).setMaxPoolWaiting(16));
        try {
            RedisBackend backend = new RedisBackend(new LuaScriptExecutor(vertx.getDelegate(), new RedisOptions().setConnectionString(server.uri()).setMaxPoolSize(2).setMaxPoolWaiting(16)), scripts, false);
            // 5 per hour on the real clock: nothing refills during the test
            Policy p = Engine.policy("hourly", Algorithm.TOKEN_BUCKET, 5, Duration.ofHours(1), 5);
            String key = Engine.newKey("hourly");
            assertEquals(4, remaining(decide(backend, p, key), 0));
            assertEquals(3, remaining(decide(backend, p, key), 0));

            server.restart();

            // the pooled connections died with the server; the client reconnects on a later call
            List<String> failures = new ArrayList<>();
            long[] after = null;
            for (int attempt = 0; attempt < 50 && after == null; attempt++) {
                try {
                    after = decide(backend, p, key);
                } catch (RuntimeException e) {
                    failures.add(e.toString());
                    Thread.sleep(100);
                }
            }
            LOG.infof("After the restart: %d failed call(s) before success %s", failures.size(), failures);
            assertNotNull(after, () -> "never recovered: " + failures);
            assertTrue(all(after), show(after));
            // no persistence: the restarted server forgot the key, so the limiter starts over
            assertEquals(4, remaining(after, 0), show(after));
            try (RespClient direct = server.client()) {
                assertEquals(1, Engine.calls(direct, "eval"), "the new server learnt the script through one EVAL");
                assertTrue(Engine.calls(direct, "evalsha") >= 1, "after an EVALSHA that got NOSCRIPT");
            }
            assertEquals(3, remaining(decide(backend, p, key), 0));
        } finally {
            client.close();
            server.stop();
        }
        assertFalse(server.isAlive());
    }

    private long[] decide(String key, long now) {
        return limiter.backend().decide(new Policy[] { policy }, new String[] { key }, new long[] { 1 }, now + S, false)
                .await().atMost(Duration.ofSeconds(10)).toScriptOrder();
    }

    private static long[] decide(RedisBackend backend, Policy p, String key) {
        return backend.decide(new Policy[] { p }, new String[] { key }, new long[] { 1 }, RateLimitBackend.BACKEND_CLOCK,
                false).await().atMost(Duration.ofSeconds(5)).toScriptOrder();
    }
}
