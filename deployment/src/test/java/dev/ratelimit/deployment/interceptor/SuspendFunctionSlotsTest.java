package dev.ratelimit.deployment.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.deployment.interceptor.suspending.Callers;
import dev.ratelimit.deployment.interceptor.suspending.Callers.Holder;
import dev.ratelimit.deployment.interceptor.suspending.Callers.Outcome;
import dev.ratelimit.deployment.interceptor.suspending.OrderRefused;
import dev.ratelimit.deployment.interceptor.suspending.Orders;
import dev.ratelimit.runtime.interceptor.CancellableSuspendFunctions;
import dev.ratelimit.runtime.interceptor.SuspendFunctions;
import dev.ratelimit.test.redis.RedisFixture;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.arc.Arc;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A {@code concurrency} policy with one slot on Kotlin {@code suspend} functions ({@link Orders}): a call holds the
 * slot while its body is suspended, so a second call is denied meanwhile, and frees it when the body ends, after resuming,
 * with a value or an exception; a body that ends without suspending frees it too. A coroutine cancelled while its
 * decision is pending never runs the body, and the slot that decision took is freed.
 */
class SuspendFunctionSlotsTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = KotlinApp.onSharedRedis()
            // long enough for a decision to wait out a paused Redis, rather than be decided by the failure mode
            .overrideConfigKey("quarkus.ratelimit.redis.timeout", "3s");

    @Inject
    Orders orders;

    Callers callers;

    @BeforeEach
    void callers() {
        callers = new Callers(orders);
    }

    @AfterEach
    void close() {
        callers.close();
    }

    /** Whether a call can take the slot now (its body ends at once, so it gives it back). */
    private boolean slotFree() {
        Outcome o = callers.quick();
        if (o.getCaught() == null) {
            return true;
        }
        assertInstanceOf(RateLimitExceededException.class, o.getCaught());
        return false;
    }

    /** Slots are freed in the background (a call to Redis): wait until it is, bounded by far less than the window. */
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
    void aSuspendedCallHoldsItsSlotUntilItsBodyEnds() throws Exception {
        assertTrue(slotFreeSoon());
        Holder first = callers.startHolding();
        assertTrue(first.awaitHolding(), "the first call's body runs, and suspends");
        Outcome second = callers.quick();
        RateLimitExceededException denied = assertInstanceOf(RateLimitExceededException.class, second.getCaught(),
                "the suspended body holds the one slot");
        assertEquals("single", denied.policy());

        Outcome done = first.finish();
        assertEquals("held", done.getValue());
        assertTrue(slotFreeSoon(), "freed when the body ended, after it resumed");
        assertTrue(slotFreeSoon(), "freed by a body that did not suspend");
    }

    @Test
    void aBodyFailingAfterItSuspendedFreesItsSlot() throws Exception {
        assertTrue(slotFreeSoon());
        Outcome failed = callers.holdThenFail(9);
        assertEquals(9, assertInstanceOf(OrderRefused.class, failed.getCaught()).getOrder());
        assertTrue(slotFreeSoon(), "freed when the body failed");
    }

    @Test
    void aCoroutineCancelledWhileItsDecisionIsPendingNeverRunsItsBody() throws Exception {
        assertInstanceOf(CancellableSuspendFunctions.class, Arc.container().select(SuspendFunctions.class).get(),
                "kotlinx.coroutines is there: cancellation is seen");
        assertTrue(slotFreeSoon());
        int started = Orders.started.get();
        try (RespClient redis = RedisFixture.shared().client()) {
            // every client waits 300 ms for its next command: the decision stays pending meanwhile
            redis.call("CLIENT", "PAUSE", "300", "ALL");
        }
        assertTrue(callers.quickCancelledWhilePending(), "the coroutine ends, cancelled, once its decision came");
        assertEquals(started, Orders.started.get(), "the body of a cancelled coroutine never runs");
        assertTrue(slotFreeSoon(), "the slot its decision took is freed");
    }
}
