package dev.ratelimit.deployment.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.deployment.interceptor.suspending.Callers;
import dev.ratelimit.deployment.interceptor.suspending.Callers.Outcome;
import dev.ratelimit.deployment.interceptor.suspending.OrderRefused;
import dev.ratelimit.deployment.interceptor.suspending.Orders;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.impl.VertxInternal;
import kotlin.Pair;

/**
 * Kotlin {@code suspend} functions of a CDI bean ({@link Orders}, compiled from {@code src/test/kotlin}) limited by
 * {@code @RateLimit} and decided in Redis without blocking: admitted calls return what their body returns, a denied
 * one throws {@link RateLimitExceededException} at its call site, catchable there. The body starts on the calling
 * coroutine's dispatcher (a single thread named {@value Callers#THREAD}), not on the Redis event loop that completed
 * the decision, and the caller goes on there too; a body that suspends is charged once. The body's exceptions reach the
 * caller as they were thrown. Called from a coroutine running on a Vert.x event loop, everything stays on that loop; a
 * coroutine without a dispatcher starts the body in the Vert.x context it called from.
 */
class SuspendFunctionTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = KotlinApp.onSharedRedis();

    @Inject
    Orders orders;

    @Inject
    Vertx vertx;

    Callers callers;

    @BeforeEach
    void callers() {
        callers = new Callers(orders);
    }

    @AfterEach
    void close() {
        callers.close();
    }

    @Test
    void admittedCallsReturnTheBodysValueAndADeniedOneThrowsAtItsCallSite() {
        assertEquals("order 1", callers.find(1));
        Outcome second = callers.findCaught(2);
        assertEquals("order 2", second.getValue());
        assertNull(second.getCaught());

        Outcome denied = callers.findCaught(3); // decided by Redis, after the interceptor suspended
        assertNull(denied.getValue());
        RateLimitExceededException e = assertInstanceOf(RateLimitExceededException.class, denied.getCaught(),
                "caught by try/catch around the call");
        assertEquals("counted", e.policy());
        assertEquals(2, e.limit());
        assertEquals(0, e.remaining());
        assertTrue(e.retryAfterSeconds() >= 1 && e.retryAfterSeconds() <= 3600, "retry-after " + e.retryAfterSeconds());
        assertEquals(e.retryAfterSeconds(), e.decision().retryAfterSeconds());
        assertEquals(Callers.THREAD, denied.getThread(), "the caller goes on on its dispatcher");

        // the deny cache answers at once, before the interceptor could suspend: thrown the same, out of runBlocking
        RateLimitExceededException again = assertThrows(RateLimitExceededException.class, () -> callers.find(4));
        assertEquals("counted", again.policy());
        assertTrue(again.retryAfterSeconds() >= 1 && again.retryAfterSeconds() <= 3600);
    }

    @Test
    void aBodyThatSuspendsRunsOnTheCoroutinesDispatcherAndIsChargedOnce() {
        for (int i = 0; i < 3; i++) {
            Outcome o = callers.threads();
            assertNull(o.getCaught(), "call " + i + " is within the limit of 3 (one charge per call)");
            assertEquals(List.of(Callers.THREAD, Callers.THREAD), o.getValue(),
                    "the body starts, and goes on after delay(), on the caller's dispatcher, not on an event loop");
            assertEquals(Callers.THREAD, o.getThread());
        }
        assertInstanceOf(RateLimitExceededException.class, callers.threads().getCaught(), "the fourth call is denied");
    }

    @Test
    void anExceptionOfTheBodyReachesTheCallerUnchanged() {
        Outcome atOnce = callers.refuse(7, false);
        OrderRefused thrown = assertInstanceOf(OrderRefused.class, atOnce.getCaught());
        assertSame(Orders.lastRefused, thrown);
        assertEquals(7, thrown.getOrder());
        assertEquals(Callers.THREAD, atOnce.getThread());

        Outcome later = callers.refuse(8, true);
        thrown = assertInstanceOf(OrderRefused.class, later.getCaught(), "thrown after the body suspended");
        assertSame(Orders.lastRefused, thrown);
        assertEquals("order 8 refused", thrown.getMessage());
        assertEquals(Callers.THREAD, later.getThread());
    }

    @Test
    void aCoroutineOnAnEventLoopIsDecidedWithoutBlockingItAndStaysThere() throws Exception {
        Context loop = vertx.getOrCreateContext();
        Pair<String, Outcome> seen = callers.whereOn(loop).get(5, TimeUnit.SECONDS);
        String start = seen.getFirst();
        Outcome o = seen.getSecond();
        assertTrue(start.contains("eventloop"), "started on an event loop: " + start);
        assertNull(o.getCaught(), "no blocking decision refused on the event loop");
        assertEquals(List.of(start, start), o.getValue(), "the body runs on the coroutine's event loop");
        assertEquals(start, o.getThread());
        assertFalse(Callers.THREAD.equals(start));
    }

    @Test
    void aCoroutineWithoutADispatcherGoesOnInTheVertxContextItCalledFrom() throws Exception {
        // a worker context, whose tasks run on worker threads: a body started on an event loop would show (Vert.x
        // already answers the Redis call on the caller's context, so this pins the path, not the hop back itself)
        Context worker = ((VertxInternal) vertx).createWorkerContext();
        Pair<String, Outcome> seen = callers.whereWithoutDispatcherOn(worker).get(5, TimeUnit.SECONDS);
        assertFalse(seen.getFirst().contains("eventloop"), "called on a worker thread: " + seen.getFirst());
        Outcome o = seen.getSecond();
        assertNull(o.getCaught());
        // where delay() resumes a coroutine without a dispatcher is kotlinx.coroutines' business: only the start counts
        String bodyStart = (String) ((List<?>) o.getValue()).get(0);
        assertFalse(bodyStart.contains("eventloop"),
                "the body starts in the caller's (worker) Vert.x context: " + bodyStart);
    }
}
