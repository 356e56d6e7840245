package dev.ratelimit.deployment.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;

/**
 * A {@code concurrency} policy on an intercepted CDI method holds its slot for as long as the work runs: a plain
 * method until it returns or throws, a {@code Uni} until it terminates (item, failure or cancellation), a
 * {@code CompletionStage} until it completes, a {@code Multi} returned by a plain method until it terminates. One slot
 * per policy here, so a second call while the first holds it is refused.
 */
class ConcurrencySlotsTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Work.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "slots-" + System.nanoTime())
            .overrideConfigKey("quarkus.ratelimit.policies.single.algorithm", "concurrency")
            .overrideConfigKey("quarkus.ratelimit.policies.single.limit", "1")
            .overrideConfigKey("quarkus.ratelimit.policies.single.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.single.key", "global");

    @ApplicationScoped
    public static class Work {
        @RateLimit("single")
        public String blocking(CountDownLatch started, CountDownLatch finish) throws InterruptedException {
            started.countDown();
            finish.await(10, TimeUnit.SECONDS);
            return "done";
        }

        @RateLimit("single")
        public String failing() {
            throw new IllegalStateException("boom");
        }

        @RateLimit("single")
        public Uni<String> uni(Uni<String> work) {
            return work;
        }

        @RateLimit("single")
        public CompletionStage<String> stage(CompletableFuture<String> work) {
            return work;
        }

        @RateLimit("single")
        public Multi<String> multi(Multi<String> work) {
            return work;
        }

        @RateLimit("single")
        public String quick() {
            return "quick";
        }
    }

    @Inject
    Work work;

    /** Whether a call can take the slot now (it is freed at once: a plain method). */
    private boolean slotFree() {
        try {
            work.quick();
            return true;
        } catch (RateLimitExceededException e) {
            return false;
        }
    }

    /** The slot is freed in the background: wait until it is (bounded). */
    private boolean slotFreeSoon() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            if (slotFree()) {
                return true;
            }
            Thread.sleep(10);
        }
        return false;
    }

    @Test
    void aPlainMethodHoldsItsSlotUntilItReturnsOrThrows() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> {
            try {
                return work.blocking(started, finish);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        started.await(10, TimeUnit.SECONDS);
        assertEquals(false, slotFree(), "the running method holds the slot");
        finish.countDown();
        assertEquals("done", running.get(10, TimeUnit.SECONDS));
        assertEquals(true, slotFreeSoon(), "freed when the method returned");
        assertThrows(IllegalStateException.class, work::failing);
        assertEquals(true, slotFreeSoon(), "freed when the method threw");
    }

    @Test
    void aUniHoldsItsSlotUntilItTerminates() throws Exception {
        CompletableFuture<String> gate = new CompletableFuture<>();
        CompletableFuture<String> result = work.uni(Uni.createFrom().completionStage(gate)).subscribeAsCompletionStage()
                .toCompletableFuture();
        assertEquals(false, slotFreeSoonNot(), "the pending Uni holds the slot");
        gate.complete("later");
        assertEquals("later", result.get(10, TimeUnit.SECONDS));
        assertEquals(true, slotFreeSoon(), "freed when the Uni emitted its item");

        CompletableFuture<String> failed = new CompletableFuture<>();
        CompletableFuture<String> failing = work.uni(Uni.createFrom().completionStage(failed))
                .subscribeAsCompletionStage().toCompletableFuture();
        assertEquals(false, slotFreeSoonNot());
        failed.completeExceptionally(new IllegalStateException("boom"));
        ExecutionException e = assertThrows(ExecutionException.class, () -> failing.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(true, slotFreeSoon(), "freed when the Uni failed");

        Cancellable cancellable = work.uni(Uni.createFrom().completionStage(new CompletableFuture<String>())).subscribe()
                .with(item -> {
                });
        assertEquals(false, slotFreeSoonNot(), "the subscribed Uni holds the slot");
        cancellable.cancel();
        assertEquals(true, slotFreeSoon(), "freed when the subscriber cancelled");
    }

    @Test
    void aCompletionStageHoldsItsSlotUntilItCompletes() throws Exception {
        CompletableFuture<String> gate = new CompletableFuture<>();
        CompletableFuture<String> result = work.stage(gate).toCompletableFuture();
        assertEquals(false, slotFreeSoonNot(), "the pending stage holds the slot");
        gate.complete("later");
        assertEquals("later", result.get(10, TimeUnit.SECONDS));
        assertEquals(true, slotFreeSoon(), "freed when the stage completed");
    }

    @Test
    void aMultiHoldsItsSlotUntilItTerminates() throws Exception {
        CompletableFuture<String> gate = new CompletableFuture<>();
        CompletableFuture<java.util.List<String>> result = work.multi(Uni.createFrom().completionStage(gate).toMulti())
                .collect().asList().subscribeAsCompletionStage().toCompletableFuture();
        assertEquals(false, slotFreeSoonNot(), "the running Multi holds the slot");
        gate.complete("item");
        assertEquals(java.util.List.of("item"), result.get(10, TimeUnit.SECONDS));
        assertEquals(true, slotFreeSoon(), "freed when the Multi completed");
    }

    /** Checks, for a moment, that the slot stays taken: false when it does. */
    private boolean slotFreeSoonNot() throws InterruptedException {
        Thread.sleep(50);
        return slotFree();
    }
}
