package dev.ratelimit.runtime.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.vertx.core.Vertx;

/**
 * The timeout sweep ends every overdue call, whatever happens to one of them: a call whose expiry throws does not stop
 * the others or the later ones, finished calls are never expired, a sweep that runs late after the process (or its
 * event loop) stood still lets the replies that arrived meanwhile be read first, and a sweep that never ran (its
 * executor dropped it) is replaced by the next call. Calls started on an event loop are swept on that loop.
 */
class CallTimeoutsTest {

    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    /** Watches a call that starts now. */
    static void watch(CallTimeouts timeouts, Call call) {
        call.startedAt = System.nanoTime();
        timeouts.watch(call, call.startedAt);
    }

    /** A call that records its expiry, and may throw from it. */
    static final class Call implements CallTimeouts.Watched {
        final AtomicBoolean finished = new AtomicBoolean();
        long startedAt;
        final CountDownLatch expired = new CountDownLatch(1);
        final AtomicInteger expiries = new AtomicInteger();
        final boolean throwing;
        volatile long expiredAt;
        volatile Thread expiredOn;

        Call(boolean throwing) {
            this.throwing = throwing;
        }

        @Override
        public boolean finished() {
            return finished.get();
        }

        @Override
        public long startedAt() {
            return startedAt;
        }

        @Override
        public void expire() {
            expiries.incrementAndGet();
            expiredAt = System.nanoTime();
            expiredOn = Thread.currentThread();
            expired.countDown();
            if (throwing) {
                throw new IllegalStateException("a caller that fails at its timeout");
            }
        }
    }

    @Test
    void everyOverdueCallExpiresEvenWhenOneThrows() throws Exception {
        CallTimeouts timeouts = new CallTimeouts(Duration.ofMillis(100), scheduler);
        Call throwing = new Call(true);
        Call answered = new Call(false);
        Call overdue = new Call(false);
        long start = System.nanoTime();
        watch(timeouts, throwing);
        watch(timeouts, answered);
        watch(timeouts, overdue);
        answered.finished.set(true); // answered before its timeout
        assertTrue(throwing.expired.await(2, TimeUnit.SECONDS), "the throwing call expired");
        assertTrue(overdue.expired.await(2, TimeUnit.SECONDS), "the call behind it expired too");
        long waited = TimeUnit.NANOSECONDS.toMillis(overdue.expiredAt - start);
        assertTrue(waited >= 100 && waited < 1000, "expired after " + waited + " ms, timeout 100 ms");

        // and the sweep still works for calls started afterwards
        Call later = new Call(false);
        watch(timeouts, later);
        assertTrue(later.expired.await(2, TimeUnit.SECONDS), "a later call expired");
        Thread.sleep(200);
        assertEquals(0, answered.expiries.get(), "an answered call is never expired");
        assertEquals(1, overdue.expiries.get(), "expired once");
    }

    /**
     * The process stands still (a GC pause, CPU throttling) past a call's timeout while its reply arrives: the sweep
     * that runs late expires nothing, the event loop reads the reply (here: right after that sweep), and only what is
     * still unanswered a tick later expires.
     */
    @Test
    void aSweepRunningLateAfterAPauseLetsTheRepliesBeReadFirst() throws Exception {
        Call answeredDuringThePause = new Call(false);
        Call unanswered = new Call(false);
        AtomicInteger sweeps = new AtomicInteger();
        ScheduledThreadPoolExecutor pausing = new ScheduledThreadPoolExecutor(1) {
            @Override
            public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
                if (sweeps.getAndIncrement() == 0) {
                    // the first sweep runs 400 ms late, then the reply waiting all along is read
                    return super.schedule(() -> {
                        command.run();
                        answeredDuringThePause.finished.set(true);
                    }, unit.toMillis(delay) + 400, TimeUnit.MILLISECONDS);
                }
                return super.schedule(command, delay, unit);
            }
        };
        try {
            CallTimeouts timeouts = new CallTimeouts(Duration.ofMillis(100), pausing);
            watch(timeouts, answeredDuringThePause);
            watch(timeouts, unanswered);
            assertTrue(unanswered.expired.await(3, TimeUnit.SECONDS), "what Redis did not answer still expires");
            Thread.sleep(100);
            assertEquals(0, answeredDuringThePause.expiries.get(), "a call answered during the pause is not expired");
        } finally {
            pausing.shutdownNow();
        }
    }

    @Test
    void aSweepThatNeverRanIsReplacedByTheNextCall() throws Exception {
        AtomicInteger dropped = new AtomicInteger();
        // an executor that accepts the first sweep and never runs it, as one that refuses a task when it falls due
        ScheduledThreadPoolExecutor losing = new ScheduledThreadPoolExecutor(1) {
            @Override
            public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
                if (dropped.getAndIncrement() == 0) {
                    return super.schedule(() -> {
                    }, delay, unit);
                }
                return super.schedule(command, delay, unit);
            }
        };
        try {
            CallTimeouts timeouts = new CallTimeouts(Duration.ofMillis(50), losing);
            Call first = new Call(false);
            watch(timeouts, first);
            Thread.sleep(400); // well past timeout + 4 ticks: the lost sweep is overdue
            assertEquals(1, first.expired.getCount(), "nothing swept yet: the only sweep was lost");
            Call next = new Call(false);
            watch(timeouts, next);
            assertTrue(first.expired.await(2, TimeUnit.SECONDS), "the next call's sweep expired the first call");
            assertTrue(next.expired.await(2, TimeUnit.SECONDS), "and the next one at its own timeout");
        } finally {
            losing.shutdownNow();
        }
    }

    /**
     * Calls started on an event loop are swept by a task of that loop, not by the shared scheduler: the unanswered one
     * expires on the loop's thread after its timeout, the answered one never.
     */
    @Test
    void callsStartedOnAnEventLoopAreSweptThere() throws Exception {
        AtomicInteger scheduled = new AtomicInteger();
        ScheduledThreadPoolExecutor counting = new ScheduledThreadPoolExecutor(1) {
            @Override
            public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
                scheduled.incrementAndGet();
                return super.schedule(command, delay, unit);
            }
        };
        Vertx vertx = Vertx.vertx();
        try {
            CallTimeouts timeouts = new CallTimeouts(Duration.ofMillis(100), counting);
            Call unanswered = new Call(false);
            Call answered = new Call(false);
            AtomicReference<Thread> loop = new AtomicReference<>();
            long start = System.nanoTime();
            vertx.getOrCreateContext().runOnContext(v -> {
                loop.set(Thread.currentThread());
                watch(timeouts, unanswered);
                watch(timeouts, answered);
                answered.finished.set(true);
            });
            assertTrue(unanswered.expired.await(2, TimeUnit.SECONDS), "the unanswered call expired");
            long waited = TimeUnit.NANOSECONDS.toMillis(unanswered.expiredAt - start);
            assertTrue(waited >= 100 && waited < 1000, "expired after " + waited + " ms, timeout 100 ms");
            assertEquals(loop.get(), unanswered.expiredOn, "expired on the event loop that started it");
            Thread.sleep(100);
            assertEquals(0, answered.expiries.get(), "an answered call is never expired");
            assertEquals(0, scheduled.get(), "the shared scheduler had nothing to sweep");
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            counting.shutdownNow();
        }
    }

    /**
     * An event loop blocked past a call's timeout, whose reply is handled on the loop after the overdue sweep (a task
     * due after the sweep, as a read can be): the late sweep expires nothing, the reply is handled, and only the call
     * still unanswered a tick later expires.
     */
    @Test
    void aLoopThatStoodStillHandlesItsRepliesBeforeExpiringThem() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            CallTimeouts timeouts = new CallTimeouts(Duration.ofMillis(100), scheduler);
            Call answeredDuringThePause = new Call(false);
            Call unanswered = new Call(false);
            vertx.getOrCreateContext().runOnContext(v -> {
                watch(timeouts, answeredDuringThePause);
                watch(timeouts, unanswered);
                // due after the first sweep (a tick, 6.25 ms), run after it once the loop goes on
                vertx.setTimer(20, t -> answeredDuringThePause.finished.set(true));
                try {
                    Thread.sleep(400); // the loop stands still past the timeout
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(unanswered.expired.await(3, TimeUnit.SECONDS), "what was not answered still expires");
            Thread.sleep(100);
            assertEquals(0, answeredDuringThePause.expiries.get(), "a call answered during the pause is not expired");
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
    }
}
