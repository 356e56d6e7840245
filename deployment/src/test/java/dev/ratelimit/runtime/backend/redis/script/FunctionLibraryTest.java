package dev.ratelimit.runtime.backend.redis.script;

import static dev.ratelimit.runtime.algorithm.Engine.all;
import static dev.ratelimit.runtime.algorithm.Engine.remaining;
import static dev.ratelimit.runtime.algorithm.Engine.show;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

import jakarta.inject.Inject;

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
 * Decisions as calls of the extension's Redis function library ({@code FCALL}) against real servers: the application
 * loads the library when it starts and then calls it, nothing else; a library Redis loses (deleted, or a restart
 * without persistence) is loaded again while decisions go on as scripts, state unaffected; a Redis that will not
 * load or call functions gets scripts; two versions of the code sharing one Redis each keep and call their own.
 */
class FunctionLibraryTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = Engine.onSharedRedis();

    @Inject
    DefaultRateLimiter limiter;

    @Inject
    LuaScriptRegistry scripts;

    @Inject
    Vertx vertx;

    /** 10 an hour: nothing refills during a test. */
    private final Policy policy = Engine.policy("hourly", Algorithm.TOKEN_BUCKET, 10, Duration.ofHours(1), 10);

    @Test
    void theApplicationLoadsTheLibraryAndDecisionsCallIt() {
        FunctionLibrary library = scripts.library();
        assertNotNull(library, "the extension's scripts make a library");
        assertTrue(library.name().matches("ratelimit_[0-9a-f]{16}"), library.name());
        try (RespClient client = RedisFixture.shared().client()) {
            if (!hasFunctions(client)) {
                return; // an external Redis before 7.0: the scripts' own tests cover it
            }
            String warm = Engine.newKey("hourly");
            awaitTrue(() -> loaded(client, library) && callsAFunction(client, () -> decide(limiter.backend(), warm)),
                    "the library is loaded when the application starts, and called");
            String key = Engine.newKey("hourly");
            assertEquals(9, remaining(decide(limiter.backend(), key), 0));
            long fcall = Engine.calls(client, "fcall");
            long evalsha = Engine.calls(client, "evalsha");
            long eval = Engine.calls(client, "eval");
            for (int i = 0; i < 5; i++) {
                decide(limiter.backend(), key);
            }
            assertEquals(fcall + 5, Engine.calls(client, "fcall"), "each decision one FCALL");
            assertEquals(evalsha, Engine.calls(client, "evalsha"), "and no script");
            assertEquals(eval, Engine.calls(client, "eval"));
            assertEquals(3, remaining(decide(limiter.backend(), key), 0));
        }
    }

    @Test
    void aLostLibraryIsLoadedAgainWhileDecisionsGoOn() {
        FunctionLibrary library = scripts.library();
        try (RespClient client = RedisFixture.shared().client()) {
            if (!hasFunctions(client)) {
                return;
            }
            awaitTrue(() -> loaded(client, library), "the library is loaded when the application starts");
            String key = Engine.newKey("hourly");
            assertEquals(9, remaining(decide(limiter.backend(), key), 0));
            client.call("FUNCTION", "DELETE", library.name());
            long eval = Engine.calls(client, "eval");
            long[] after = decide(limiter.backend(), key);
            assertTrue(all(after), show(after));
            assertEquals(8, remaining(after, 0), () -> "the key's state unaffected: " + show(after));
            assertEquals(eval + 1, Engine.calls(client, "eval"), "the call that found no function went as EVAL");
            assertALaterCallLoadsTheLibrary(client, limiter.backend(), key, 7, "the next call loads the library again");
        }
    }

    @Test
    void aRedisRestartIsSurvivedAndTheLibraryLoadedAgain() throws InterruptedException {
        RedisServerProcess server = new RedisServerProcess().start();
        Redis client = client(server.uri());
        try {
            LuaScriptExecutor executor = new LuaScriptExecutor(vertx.getDelegate(), clientOptions(server.uri()));
            assertTrue(load(executor, scripts.library()));
            RedisBackend backend = new RedisBackend(executor, scripts, false);
            String key = Engine.newKey("hourly");
            assertEquals(9, remaining(decide(backend, key), 0));
            assertEquals(8, remaining(decide(backend, key), 0));

            server.restart();

            List<String> failures = new ArrayList<>();
            long[] after = null;
            for (int attempt = 0; attempt < 50 && after == null; attempt++) {
                try {
                    after = decide(backend, key);
                } catch (RuntimeException e) {
                    failures.add(e.toString());
                    Thread.sleep(100);
                }
            }
            assertNotNull(after, () -> "never recovered: " + failures);
            // no persistence: the restarted server forgot the key and the library
            assertEquals(9, remaining(after, 0), show(after));
            try (RespClient direct = server.client()) {
                assertALaterCallLoadsTheLibrary(direct, backend, key, 8, "a later call loads the library into the new server");
            }
        } finally {
            client.close();
            server.stop();
        }
        assertFalse(server.isAlive());
    }

    @Test
    void aLibraryThatCouldNotLoadAtStartIsLoadedByALaterCall() {
        int port = RedisServerProcess.freePort();
        Redis client = client("redis://127.0.0.1:" + port);
        RedisServerProcess server = new RedisServerProcess(port);
        try {
            LuaScriptExecutor executor = new LuaScriptExecutor(vertx.getDelegate(), clientOptions("redis://127.0.0.1:" + port));
            // Redis not up yet, as an application may start before it
            assertFalse(load(executor, scripts.library()));
            server.start();
            RedisBackend backend = new RedisBackend(executor, scripts, false);
            String key = Engine.newKey("hourly");
            assertEquals(9, remaining(decide(backend, key), 0), "decided as a script meanwhile");
            try (RespClient direct = server.client()) {
                assertALaterCallLoadsTheLibrary(direct, backend, key, 8, "a call after the retry delay loads the library");
            }
        } finally {
            client.close();
            server.stop();
        }
    }

    @Test
    void aDenialIsStillAnsweredWhenRedisIsOutOfMemory() {
        // a function that may write is refused whole when Redis is out of memory, where a script is refused only its
        // writes: the call goes again as a script, and a denial, which writes nothing, gets its answer
        RedisServerProcess server = new RedisServerProcess().start();
        Redis client = client(server.uri());
        try (RespClient direct = server.client()) {
            LuaScriptExecutor executor = new LuaScriptExecutor(vertx.getDelegate(), clientOptions(server.uri()));
            assertTrue(load(executor, scripts.library()));
            RedisBackend backend = new RedisBackend(executor, scripts, false);
            Policy one = Engine.policy("hourly", Algorithm.TOKEN_BUCKET, 1, Duration.ofHours(1), 1);
            String key = Engine.newKey("hourly");
            assertTrue(all(decide(backend, one, key)), "the one unit, taken");
            direct.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
            direct.call("CONFIG", "SET", "maxmemory", "1");
            try {
                long[] denied = decide(backend, one, key);
                assertFalse(all(denied), show(denied));
                assertEquals(0, remaining(denied, 0), show(denied));
                assertTrue(Engine.calls(direct, "eval") >= 1, "answered by the script");
            } finally {
                direct.call("CONFIG", "SET", "maxmemory", "0");
            }
        } finally {
            client.close();
            server.stop();
        }
    }

    @Test
    void aUserWhoMayNotLoadFunctionsGetsScripts() {
        asUserWithout("-function", (admin, executor) -> {
            assertFalse(load(executor, scripts.library()),
                    "FUNCTION LOAD refused");
            RedisBackend backend = new RedisBackend(executor, scripts, false);
            String key = Engine.newKey("hourly");
            for (int i = 9; i >= 7; i--) {
                assertEquals(i, remaining(decide(backend, key), 0));
            }
            assertEquals(0, Engine.calls(admin, "fcall"));
            assertTrue(Engine.calls(admin, "evalsha") >= 3, "the decisions ran as scripts");
        });
    }

    @Test
    void aUserWhoMayNotCallFunctionsGetsScripts() {
        asUserWithout("-fcall", (admin, executor) -> {
            assertTrue(load(executor, scripts.library()),
                    "FUNCTION LOAD allowed");
            RedisBackend backend = new RedisBackend(executor, scripts, false);
            String key = Engine.newKey("hourly");
            long[] first = decide(backend, key);
            assertTrue(all(first), show(first));
            assertEquals(9, remaining(first, 0), "the refused FCALL went again as EVAL");
            long evalsha = Engine.calls(admin, "evalsha");
            assertEquals(8, remaining(decide(backend, key), 0));
            assertEquals(7, remaining(decide(backend, key), 0));
            assertEquals(evalsha + 2, Engine.calls(admin, "evalsha"), "later decisions run as scripts");
            assertEquals(1, Engine.calls(admin, "eval"));
        });
    }

    /**
     * Runs {@code test} on a server of its own, with an executor connected as a user who has every right but the one
     * {@code denied} takes away, and a connection of the default user to look at the server.
     */
    private void asUserWithout(String denied, BiConsumer<RespClient, LuaScriptExecutor> test) {
        RedisServerProcess server = new RedisServerProcess().start();
        try (RespClient admin = server.client()) {
            admin.call("ACL", "SETUSER", "limited", "on", ">secret", "~*", "&*", "+@all", denied);
            LuaScriptExecutor executor = new LuaScriptExecutor(vertx.getDelegate(),
                    clientOptions("redis://limited:secret@" + server.host() + ":" + server.port()));
            try {
                test.accept(admin, executor);
            } finally {
                executor.close();
            }
        } finally {
            server.stop();
        }
    }

    @Test
    void versionsSharingOneRedisKeepAndCallTheirOwnLibraries() {
        // another version of the code: the same scripts with one more line in each
        Map<String, LuaScript> changed = new HashMap<>();
        for (LuaScript s : scripts.all()) {
            String body = s.body().replaceFirst("\n", "\n-- another version\n");
            changed.put(s.name(), new LuaScript(s.name(), body, LuaScript.sha1(body)));
        }
        LuaScriptRegistry other = new LuaScriptRegistry(changed);
        assertNotNull(other.library());
        assertNotEquals(scripts.library().name(), other.library().name(), "another code, another library");
        for (LuaScript s : other.all()) {
            assertFalse(s.function() != null && s.function().startsWith(scripts.library().name() + "_"), s.name());
        }
        RedisServerProcess server = new RedisServerProcess().start();
        Redis client = client(server.uri());
        try (RespClient direct = server.client()) {
            LuaScriptExecutor mine = new LuaScriptExecutor(vertx.getDelegate(), clientOptions(server.uri()));
            LuaScriptExecutor theirs = new LuaScriptExecutor(vertx.getDelegate(), clientOptions(server.uri()));
            assertTrue(load(mine, scripts.library()));
            assertTrue(load(theirs, other.library()));
            // a second instance of a version finds its library there and uses it
            assertTrue(load(new LuaScriptExecutor(vertx.getDelegate(), clientOptions(server.uri())), other.library()));
            assertTrue(loaded(direct, scripts.library()) && loaded(direct, other.library()), "both kept");
            RedisBackend a = new RedisBackend(mine, scripts, false);
            RedisBackend b = new RedisBackend(theirs, other, false);
            String key = Engine.newKey("hourly");
            long fcall = Engine.calls(direct, "fcall");
            assertEquals(9, remaining(decide(a, key), 0));
            assertEquals(8, remaining(decide(b, key), 0), "one key, decided by both versions");
            assertEquals(7, remaining(decide(a, key), 0));
            assertEquals(fcall + 3, Engine.calls(direct, "fcall"));
        } finally {
            client.close();
            server.stop();
        }
    }

    private long[] decide(RateLimitBackend backend, String key) {
        return decide(backend, policy, key);
    }

    private static long[] decide(RateLimitBackend backend, Policy policy, String key) {
        return backend.decide(new Policy[] { policy }, new String[] { key }, new long[] { 1 },
                RateLimitBackend.BACKEND_CLOCK, false).await().atMost(Duration.ofSeconds(5)).toScriptOrder();
    }

    private static RedisOptions clientOptions(String uri) {
        return new RedisOptions().setConnectionString(uri).setMaxPoolSize(8).setMaxPoolWaiting(16);
    }

    private Redis client(String uri) {
        return Redis.createClient(vertx, new RedisOptions().setConnectionString(uri).setMaxPoolSize(8).setMaxPoolWaiting(16));
    }

    /** Whether {@code executor} loaded {@code library} and uses it (see {@link LuaScriptExecutor#loadFunctions}). */
    private static boolean load(LuaScriptExecutor executor, FunctionLibrary library) {
        return executor.loadFunctions(library).await().atMost(Duration.ofSeconds(5));
    }

    private static boolean hasFunctions(RespClient client) {
        String info = client.callString("INFO", "server");
        String version = info.substring(info.indexOf("redis_version:") + 14).split("\\r?\\n")[0].trim();
        return Integer.parseInt(version.substring(0, version.indexOf('.'))) >= 7;
    }

    /**
     * Decides on other keys until a decision goes as {@code FCALL} with the library on the server, then checks that a
     * decision on {@code key} is one {@code FCALL} leaving {@code remaining} units (a second key, so that this one's
     * count stays known).
     */
    private void assertALaterCallLoadsTheLibrary(RespClient direct, RateLimitBackend backend, String key, long remaining,
            String what) {
        String other = Engine.newKey("hourly");
        awaitTrue(() -> callsAFunction(direct, () -> decide(backend, other)) && loaded(direct, scripts.library()), what);
        long fcall = Engine.calls(direct, "fcall");
        assertEquals(remaining, remaining(decide(backend, key), 0));
        assertEquals(fcall + 1, Engine.calls(direct, "fcall"), "and calls it");
    }

    /** Whether {@code decision}, made now, went to Redis as an {@code FCALL} (the executor uses the library). */
    private static boolean callsAFunction(RespClient client, Runnable decision) {
        long before = Engine.calls(client, "fcall");
        decision.run();
        return Engine.calls(client, "fcall") > before;
    }

    private static boolean loaded(RespClient client, FunctionLibrary library) {
        return !((List<?>) client.call("FUNCTION", "LIST", "LIBRARYNAME", library.name())).isEmpty();
    }

    private static void awaitTrue(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 5 s: " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
