package dev.ratelimit.runtime.resilience;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jboss.logging.Logger;

/**
 * Ends the backend calls that outlive the timeout. Every call gets the same timeout, so calls expire in
 * the order they started: one queue in start order and one sweep per tick replace a timer per call
 * (scheduling and cancelling a timer on every decision was a tenth of the limiter's CPU under load).
 * A call expires between {@code timeout} and {@code timeout + tick} after it started, one tick later when the process
 * stood still meanwhile (see {@link #PAUSE_NANOS}).
 */
public final class CallTimeouts {

    private static final Logger LOG = Logger.getLogger(CallTimeouts.class);

    /** A call being watched. */
    public abstract static class Watched {
        long deadline;

        /** Whether the call already ended (answered, failed or cancelled): nothing to do. */
        protected abstract boolean finished();

        /** The timeout passed: end the call. */
        protected abstract void expire();
    }

    /**
     * A sweep running this much later than it was due (beyond twice the tick) means the whole process stood still: a
     * long GC pause, CPU throttling. The replies of the calls it would expire may then be waiting, unread, on their
     * connections; expiring them would answer from the failure mode what Redis answered in time, and open the
     * circuit breaker on a healthy Redis.
     */
    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final ConcurrentLinkedQueue<Watched> started = new ConcurrentLinkedQueue<>();
    /** Whether the last sweep found the process had stood still and expired nothing (guarded by {@code started}). */
    private boolean pausedBefore;
    private final AtomicBoolean sweepScheduled = new AtomicBoolean();
    private final long timeoutNanos;
    private final long tickNanos;
    private final ScheduledExecutorService scheduler;
    /** When the scheduled sweep should run (valid while {@code sweepScheduled}). */
    private volatile long sweepDue;

    public CallTimeouts(Duration timeout, ScheduledExecutorService scheduler) {
        this.timeoutNanos = timeout.toNanos();
        // a sixteenth of the timeout, between 1 ms and 50 ms
        this.tickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), Math.min(TimeUnit.MILLISECONDS.toNanos(50),
                timeoutNanos / 16));
        this.scheduler = scheduler;
    }

    /** Starts watching a call that starts now. */
    public void watch(Watched call) {
        watch(call, System.nanoTime());
    }

    /** Starts watching a call that started at {@code now}, as {@link System#nanoTime()} read it. */
    public void watch(Watched call, long now) {
        call.deadline = now + timeoutNanos;
        started.add(call);
        if (sweepScheduled.get() && now - sweepDue > timeoutNanos + 4 * tickNanos) {
            // the scheduled sweep never ran (its executor refused it when it fell due): schedule another
            sweepScheduled.set(false);
        }
        scheduleSweep();
    }

    private void scheduleSweep() {
        if (sweepScheduled.compareAndSet(false, true)) {
            sweepDue = System.nanoTime() + tickNanos;
            try {
                scheduler.schedule(this::sweep, tickNanos, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                sweepScheduled.set(false); // shutting down: nothing will wait for these calls
            }
        }
    }

    /**
     * Drops the finished calls at the head and hands the overdue ones to the executor (their callers
     * continue there, in parallel, and none can hold up the sweep); sweeps are the only consumers of the queue.
     */
    private void sweep() {
        try {
            long now = System.nanoTime();
            // a late sweep and the one scheduled in its place (see watch) take turns
            synchronized (started) {
                if (now - sweepDue > Math.max(PAUSE_NANOS, 2 * tickNanos) && !pausedBefore) {
                    // the process stood still: let the event loops read what arrived meanwhile, and expire what is
                    // still unanswered one tick later
                    pausedBefore = true;
                    return;
                }
                pausedBefore = false;
                Watched head;
                while ((head = started.peek()) != null) {
                    boolean finished = head.finished();
                    if (!finished && head.deadline - now > 0) {
                        break; // the oldest running call is not due: none behind it is
                    }
                    started.poll();
                    if (!finished) {
                        expire(head);
                    }
                }
            }
        } finally {
            sweepScheduled.set(false);
            if (!started.isEmpty()) {
                scheduleSweep();
            }
        }
    }

    private void expire(Watched call) {
        try {
            scheduler.execute(() -> expireNow(call));
        } catch (RejectedExecutionException e) {
            expireNow(call);
        }
    }

    private static void expireNow(Watched call) {
        try {
            call.expire();
        } catch (RuntimeException | Error e) {
            LOG.errorf(e, "Ending a rate-limit call at its timeout failed");
        }
    }
}
