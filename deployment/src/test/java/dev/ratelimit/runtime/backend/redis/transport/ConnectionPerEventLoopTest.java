package dev.ratelimit.runtime.backend.redis.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.algorithm.Engine;
import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.test.redis.RedisFixture;
import dev.ratelimit.test.redis.RespClient;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;
import io.vertx.core.impl.ContextInternal;
import io.vertx.core.impl.VertxInternal;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;

/**
 * Each event loop has a Redis connection of its own, opened on it: a decision made on an event loop is sent and its
 * reply read on that loop's thread, without the thread of another loop. Shown by blocking every other event loop
 * while one decides: served by a connection of another loop (as the Redis client's pool would serve it, from the
 * one loop the client was created on), the decision would wait for that loop and time out.
 */
class ConnectionPerEventLoopTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = Engine.onSharedRedis()
            .overrideConfigKey("quarkus.ratelimit.policies.loops.limit", "1000000")
            .overrideConfigKey("quarkus.ratelimit.policies.loops.window", "1s")
            .overrideConfigKey("quarkus.ratelimit.redis.timeout", "2s");

    @Inject
    Vertx vertx;

    @Inject
    DefaultRateLimiter limiter;

    @Inject
    LuaScriptRegistry scripts;

    @Test
    void aDecisionOnAnEventLoopNeedsNoOtherLoop() throws Exception {
        List<ContextInternal> loops = oneContextPerEventLoop();
        assertTrue(loops.size() >= 2, "the test needs two event loops, has " + loops.size());
        String key = Engine.newIdentity();
        for (ContextInternal loop : loops) {
            // opens the loop's connection (connecting may involve other loops: the address resolver)
            assertDecidedByRedisOnItsThread(decideOn(loop, () -> limiter.check("loops", key, 1)));
        }
        for (ContextInternal loop : loops) {
            List<CountDownLatch> released = blockAllBut(loop, loops);
            try {
                assertDecidedByRedisOnItsThread(decideOn(loop, () -> limiter.check("loops", key, 1)));
            } finally {
                released.forEach(CountDownLatch::countDown);
            }
        }
    }

    @Test
    void eachEventLoopOpensOneConnectionAndWorkersUseThem() throws Exception {
        List<ContextInternal> loops = oneContextPerEventLoop();
        assertEquals(loops.size(), connectionsOpenedBy(LuaScriptExecutor.ONE_PER_EVENT_LOOP, loops),
                "one connection per event loop");
    }

    @Test
    void beyondTheBoundEventLoopsShareConnections() throws Exception {
        List<ContextInternal> loops = oneContextPerEventLoop();
        assertEquals(1, connectionsOpenedBy(1, loops), "quarkus.ratelimit.redis.connections=1");
    }

    /**
     * How many connections an executor with at most {@code bound} connections opens for calls from every event loop,
     * from worker threads of each loop's context and from a thread with no context, all of which must be answered.
     */
    private int connectionsOpenedBy(int bound, List<ContextInternal> loops) throws Exception {
        LuaScriptExecutor executor = new LuaScriptExecutor(vertx.getDelegate(), options(), 16, bound);
        try (RespClient admin = RedisFixture.shared().client()) {
            int before = connections(admin);
            String[] keys = { Engine.newKey("loops") };
            String[] args = { Long.toString(Engine.BASE), "0", "token-bucket", "1000000", "60000000", "1000000", "0", "1" };
            Supplier<Uni<Long>> decide = () -> executor.execute(scripts.forAlgorithm(Algorithm.TOKEN_BUCKET), keys, args,
                    r -> r.get(0).toLong());
            for (ContextInternal loop : loops) {
                assertEquals(1L, decideOn(loop, decide).get(5, TimeUnit.SECONDS).item, "admitted on " + loop);
            }
            for (ContextInternal loop : loops) {
                Long admitted = loop.<Long> executeBlocking(() -> decide.get().await().atMost(Duration.ofSeconds(5)))
                        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
                assertEquals(1L, admitted, "admitted on a worker of " + loop);
            }
            assertEquals(1L, decide.get().await().atMost(Duration.ofSeconds(5)), "admitted on a thread with no context");
            return connections(admin) - before;
        } finally {
            executor.close();
        }
    }

    /** An event-loop context on each of Vert.x's event loops. */
    private List<ContextInternal> oneContextPerEventLoop() {
        VertxInternal vx = (VertxInternal) vertx.getDelegate();
        List<ContextInternal> contexts = new ArrayList<>();
        for (EventExecutor e : vx.getEventLoopGroup()) {
            contexts.add(vx.createEventLoopContext((EventLoop) e, null, Thread.currentThread().getContextClassLoader()));
        }
        return contexts;
    }

    /** Keeps every loop but {@code free} busy until the returned latches are counted down. */
    private static List<CountDownLatch> blockAllBut(ContextInternal free, List<ContextInternal> loops)
            throws InterruptedException {
        List<CountDownLatch> releases = new ArrayList<>();
        CountDownLatch blocked = new CountDownLatch(loops.size() - 1);
        for (ContextInternal loop : loops) {
            if (loop == free) {
                continue;
            }
            CountDownLatch release = new CountDownLatch(1);
            releases.add(release);
            loop.runOnContext(v -> {
                blocked.countDown();
                try {
                    release.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        assertTrue(blocked.await(5, TimeUnit.SECONDS), "the other event loops are busy");
        return releases;
    }

    /** What a call made on {@code loop} got, and the thread it got it on. */
    record Outcome<T>(T item, Throwable failure, Thread caller, Thread answered) {
    }

    private static <T> CompletableFuture<Outcome<T>> decideOn(ContextInternal loop, Supplier<Uni<T>> call) {
        CompletableFuture<Outcome<T>> outcome = new CompletableFuture<>();
        loop.runOnContext(v -> {
            Thread caller = Thread.currentThread();
            call.get().subscribe().with(
                    item -> outcome.complete(new Outcome<>(item, null, caller, Thread.currentThread())),
                    failure -> outcome.complete(new Outcome<>(null, failure, caller, Thread.currentThread())));
        });
        return outcome;
    }

    private static void assertDecidedByRedisOnItsThread(CompletableFuture<Outcome<RateLimitDecision>> pending)
            throws Exception {
        // well within the 2 s timeout: a decision waiting for a blocked loop would take the 2 s, then be local
        Outcome<RateLimitDecision> o = pending.get(1500, TimeUnit.MILLISECONDS);
        assertNotNull(o.item(), () -> "decided: " + o.failure());
        assertEquals(RateLimitDecision.Source.REDIS, o.item().source(), "decided by Redis");
        assertTrue(o.item().allowed());
        assertSame(o.caller(), o.answered(), "answered on the caller's event-loop thread");
    }

    private static int connections(RespClient admin) throws InterruptedException {
        // a connection closed by an earlier test may still be listed for a moment
        int count = -1;
        for (int i = 0; i < 20; i++) {
            int now = admin.callString("CLIENT", "LIST").split("\n").length;
            if (now == count) {
                return now;
            }
            count = now;
            Thread.sleep(50);
        }
        return count;
    }

    private static RedisOptions options() {
        return new RedisOptions().setConnectionString(RedisFixture.shared().uri()).setMaxPoolSize(4);
    }
}
