package dev.ratelimit.runtime.resilience;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jboss.logging.Logger;

import dev.ratelimit.runtime.vertx.EventLoops;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * Ends the backend calls that outlive the timeout. Every call gets the same timeout, so calls expire in
 * the order they started: a queue in start order and one sweep per tick replace a timer per call
 * (scheduling and cancelling a timer on every decision was a tenth of the limiter's CPU under load).
 * A call expires between {@code timeout} and {@code timeout + tick} after it started, one tick later when the process
 * stood still meanwhile (see {@link #PAUSE_NANOS}).
 * <p>
 * Calls started on a Vert.x event loop (nearly all: HTTP requests, and Redis replies that start the next call) are
 * watched in a lane of that loop: a plain queue only its thread touches, swept by a task on the loop itself, where an
 * overdue call's caller goes on as it would have with its reply. One queue shared by every thread cost each call a
 * contended insertion and the sweeping thread a cache miss per call (about 5 % of the JVM's CPU under load, on a
 * thread of its own competing with the event loops). Calls from other threads share a concurrent lane swept on the
 * scheduler given, which hands overdue calls to it so that none can hold up the sweep.
 */
public final class CallTimeouts {

    private static final Logger LOG = Logger.getLogger(CallTimeouts.class);

    /**
     * A call being watched. An interface, so that the object that is the call (a {@code Uni}, its subscription, the
     * backend's subscriber) is also what is watched, rather than one object more per call.
     */
    public interface Watched {

        /** Whether the call already ended (answered, failed or cancelled): nothing to do. */
        boolean finished();

        /** The timeout passed: end the call. */
        void expire();

        /**
         * When the call started, on {@link System#nanoTime()}'s clock: the time it was watched from
         * ({@link CallTimeouts#watch(Watched, long)}), which the call keeps (it expires one timeout later).
         */
        long startedAt();
    }

    /**
     * A sweep running this much later than it was due (beyond twice the tick) means the whole process, or the event
     * loop of the lane, stood still: a long GC pause, CPU throttling, a blocked loop. The replies of the calls it would
     * expire may then be waiting, unread, on their connections; expiring them would answer from the failure mode what
     * Redis answered in time, and open the circuit breaker on a healthy Redis.
     */
    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final long timeoutNanos;
    private final long tickNanos;
    private final Lane shared;
    /** The lane of each event loop that watched a call. */
    private final Map<EventLoop, Lane> loopLanes = new ConcurrentHashMap<>();
    /**
     * The lane the calling event loop used last and whose it is, looked up on every call: a Netty thread local (an
     * index into the thread's own array on Vert.x threads, where a JDK one probes a hash table). One for all
     * instances, so that a stopped application's lane does not stay in the thread's array (Netty never reclaims an
     * index, and dev mode keeps the event loops across reloads); another instance on the same thread finds its lane
     * in {@link #loopLanes}.
     */
    private static final FastThreadLocal<Lane> LAST_LANE = new FastThreadLocal<>();

    public CallTimeouts(Duration timeout, ScheduledExecutorService scheduler) {
        this.timeoutNanos = timeout.toNanos();
        // a sixteenth of the timeout, between 1 ms and 50 ms
        this.tickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), Math.min(TimeUnit.MILLISECONDS.toNanos(50),
                timeoutNanos / 16));
        this.shared = new Lane(new ConcurrentLinkedQueue<>(), scheduler, false);
    }

    /**
     * Starts watching a call that started at {@code now}, as {@link System#nanoTime()} read it: what its
     * {@link Watched#startedAt()} says.
     */
    public void watch(Watched call, long now) {
        lane().watch(call, now);
    }

    /** The calling event loop's lane, or the shared one. */
    private Lane lane() {
        Lane lane = LAST_LANE.get();
        if (lane != null && lane.owner() == this) {
            return lane;
        }
        EventLoop loop = EventLoops.current();
        if (loop == null) {
            return shared;
        }
        lane = loopLanes.computeIfAbsent(loop, l -> new Lane(new ArrayDeque<>(), l, true));
        LAST_LANE.set(lane);
        return lane;
    }

    /** Calls in start order, swept on {@code scheduler}. */
    private final class Lane {
        private final Queue<Watched> started;
        private final ScheduledExecutorService scheduler;
        /** Whether the sweep runs the expiries itself (on an event loop) or hands them to the scheduler. */
        private final boolean expireInline;
        private final AtomicBoolean sweepScheduled = new AtomicBoolean();
        /** When the scheduled sweep should run (valid while {@code sweepScheduled}). */
        private volatile long sweepDue;
        /** Whether the last sweep found the process had stood still and expired nothing (guarded by {@code started}). */
        private boolean pausedBefore;

        CallTimeouts owner() {
            return CallTimeouts.this;
        }

        Lane(Queue<Watched> started, ScheduledExecutorService scheduler, boolean expireInline) {
            this.started = started;
            this.scheduler = scheduler;
            this.expireInline = expireInline;
        }

        void watch(Watched call, long now) {
            started.add(call);
            if (sweepScheduled.get() && now - sweepDue > timeoutNanos + 4 * tickNanos) {
                // the scheduled sweep never ran (its executor refused it when it fell due): schedule another
                sweepScheduled.set(false);
            }
            scheduleSweep();
        }

        private void scheduleSweep() {
            // read first: nearly every call finds the sweep scheduled, and a failed compare-and-set still writes
            if (!sweepScheduled.get() && sweepScheduled.compareAndSet(false, true)) {
                sweepDue = System.nanoTime() + tickNanos;
                try {
                    scheduler.schedule(this::sweep, tickNanos, TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException e) {
                    sweepScheduled.set(false); // shutting down: nothing will wait for these calls
                }
            }
        }

        /** Drops the finished calls at the head and ends the overdue ones; sweeps are the only consumers. */
        private void sweep() {
            try {
                long now = System.nanoTime();
                // a late sweep and the one scheduled in its place (see watch) take turns
                synchronized (started) {
                    if (now - sweepDue > Math.max(PAUSE_NANOS, 2 * tickNanos) && !pausedBefore) {
                        // the process stood still: let the event loops read what arrived meanwhile, and expire what
                        // is still unanswered one tick later
                        pausedBefore = true;
                        return;
                    }
                    pausedBefore = false;
                    Watched head;
                    while ((head = started.peek()) != null) {
                        boolean finished = head.finished();
                        if (!finished && head.startedAt() + timeoutNanos - now > 0) {
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
            if (expireInline) {
                expireNow(call);
                return;
            }
            try {
                scheduler.execute(() -> expireNow(call));
            } catch (RejectedExecutionException e) {
                expireNow(call);
            }
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
