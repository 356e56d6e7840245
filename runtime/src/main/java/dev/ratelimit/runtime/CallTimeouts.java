package dev.ratelimit.runtime;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Ends the backend calls that outlive the timeout. Every call gets the same timeout, so calls expire in
 * the order they started: one queue in start order and one sweep per tick replace a timer per call
 * (scheduling and cancelling a timer on every decision was a tenth of the limiter's CPU under load).
 * A call expires between {@code timeout} and {@code timeout + tick} after it started.
 */
final class CallTimeouts {

    /** A call being watched. */
    abstract static class Watched {
        long deadline;

        /** Whether the call already ended (answered, failed or cancelled): nothing to do. */
        abstract boolean finished();

        /** The timeout passed: end the call. */
        abstract void expire();
    }

    private final ConcurrentLinkedQueue<Watched> started = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean sweepScheduled = new AtomicBoolean();
    private final long timeoutNanos;
    private final long tickNanos;
    private final ScheduledExecutorService scheduler;

    CallTimeouts(Duration timeout, ScheduledExecutorService scheduler) {
        this.timeoutNanos = timeout.toNanos();
        // a sixteenth of the timeout, between 1 ms and 50 ms
        this.tickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), Math.min(TimeUnit.MILLISECONDS.toNanos(50),
                timeoutNanos / 16));
        this.scheduler = scheduler;
    }

    /** Starts watching a call that starts now. */
    void watch(Watched call) {
        call.deadline = System.nanoTime() + timeoutNanos;
        started.add(call);
        scheduleSweep();
    }

    private void scheduleSweep() {
        if (sweepScheduled.compareAndSet(false, true)) {
            try {
                scheduler.schedule(this::sweep, tickNanos, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                sweepScheduled.set(false); // shutting down: nothing will wait for these calls
            }
        }
    }

    /** Drops the finished calls at the head and expires the overdue ones; the only consumer of the queue. */
    private void sweep() {
        long now = System.nanoTime();
        Watched head;
        while ((head = started.peek()) != null) {
            boolean finished = head.finished();
            if (!finished && head.deadline - now > 0) {
                break; // the oldest running call is not due: none behind it is
            }
            started.poll();
            if (!finished) {
                head.expire();
            }
        }
        sweepScheduled.set(false);
        if (!started.isEmpty()) {
            scheduleSweep();
        }
    }
}
