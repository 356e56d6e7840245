package dev.ratelimit.benchmark;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.jboss.logging.Logger;

/**
 * A closed-loop load: {@code concurrency} callers, each starting its next call as soon as the
 * previous one ends, for a warm-up and then a measured period. Latency is from the start of a call
 * to its end, recorded in microseconds with HdrHistogram (wait-free, from any thread), for calls that
 * Redis decided: a failed call is counted apart, and kept out of the latencies and of the CPU per
 * decision (an error answered at once would make a failing contender look fast and cheap).
 * <p>
 * The callers are asynchronous (a caller is a chain of calls, not a thread): on a 2-core machine 64
 * blocked threads would measure the scheduler more than the limiter, and every contender here has
 * an asynchronous API. Each caller starts on one of the given threads (the Vert.x event loops, in
 * turn, as HTTP requests arrive in Quarkus) and goes on where its calls complete: a Vert.x client
 * completes a call on the event loop that made it, so the callers stay spread over the event loops.
 * Started all from one thread, they would all go on on the one event loop their first replies
 * came on, and an executor's second connection would never carry a call.
 */
final class ClosedLoop {

    private static final Logger LOG = Logger.getLogger(ClosedLoop.class);

    private final Operation operation;
    private final KeySet keySet;
    private final Recorder recorder = new Recorder(3);
    private final LongAdder succeeded = new LongAdder();
    /** Decided calls that were denied: counted rather than the admitted ones, so the common case, none, is exact. */
    private final LongAdder denied = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean running = true;
    private volatile Throwable lastFailure;

    private ClosedLoop(Operation operation, KeySet keySet) {
        this.operation = operation;
        this.keySet = keySet;
    }

    /**
     * Runs {@code operation} with that many callers over the keys of {@code keySet} (picked as it picks them) and
     * measures it, with the CPU time this process and Redis ({@code redisCpuSeconds}, its {@code used_cpu_user +
     * used_cpu_sys}) spent over the measured period, and what {@code counters} (null: none; calls per connection) and
     * {@code tallies} (null: none; Redis commands, slices...) counted over it. Caller {@code i} makes its first call on
     * {@code starters[i % starters.size()]} (none: on this thread).
     */
    static Measurement run(Operation operation, KeySet keySet, int concurrency, long warmupMillis, long durationMillis,
            List<Executor> starters, DoubleSupplier redisCpuSeconds, Supplier<long[]> counters, Supplier<long[]> tallies) {
        ClosedLoop loop = new ClosedLoop(operation, keySet);
        for (int i = 0; i < concurrency; i++) {
            loop.inFlight.incrementAndGet();
            Caller caller = new Caller(loop);
            if (starters.isEmpty()) {
                caller.next();
            } else {
                starters.get(i % starters.size()).execute(caller::next);
            }
        }
        sleep(warmupMillis);
        loop.recorder.getIntervalHistogram(); // drop the warm-up
        loop.succeeded.reset();
        loop.denied.reset();
        loop.failures.reset();
        long[] countedStart = counters == null ? new long[0] : counters.get();
        long[] talliedStart = tallies == null ? new long[0] : tallies.get();
        double redisStart = redisCpuSeconds.getAsDouble();
        java.util.Map<String, Long> jitStart = JitCpu.snapshot();
        long cpuStart = processCpuNanos();
        long allocStart = allocatedBytes();
        long start = System.nanoTime();
        sleep(durationMillis);
        Histogram h = loop.recorder.getIntervalHistogram();
        long ok = loop.succeeded.sumThenReset();
        long admitted = ok - loop.denied.sumThenReset();
        long failed = loop.failures.sumThenReset();
        long elapsed = System.nanoTime() - start;
        long cpu = processCpuNanos() - cpuStart;
        long allocated = allocatedBytes() - allocStart;
        long jit = JitCpu.nanosBetween(jitStart, JitCpu.snapshot());
        double redisCpu = redisCpuSeconds.getAsDouble() - redisStart;
        long[] counted = counters == null ? new long[0] : counters.get();
        for (int i = 0; i < counted.length; i++) {
            counted[i] -= i < countedStart.length ? countedStart[i] : 0;
        }
        long[] tallied = tallies == null ? new long[0] : tallies.get();
        for (int i = 0; i < tallied.length; i++) {
            tallied[i] -= i < talliedStart.length ? talliedStart[i] : 0;
        }
        loop.running = false;
        loop.drain();
        if (loop.lastFailure != null && failed > 0) {
            LOG.debugf("Last failure: %s", loop.lastFailure.toString());
        }
        return new Measurement(h, ok, admitted, failed, elapsed, loop.lastFailure, cpu, jit, redisCpu * 1e9, counted,
                tallied, allocated);
    }

    /** Bytes allocated so far by every live thread of this process (a thread that ended takes its count along). */
    static long allocatedBytes() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
                .getThreadMXBean();
        long sum = 0;
        for (long b : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            if (b > 0) {
                sum += b;
            }
        }
        return sum;
    }

    /** CPU time of this whole process (every thread: callers, clients, GC, JIT), in nanoseconds. */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private void drain() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            sleep(5);
        }
        if (inFlight.get() > 0) {
            LOG.warnf("%d calls still in flight 30 s after the end of a measurement", inFlight.get());
        }
    }

    /**
     * One caller. A call that completes on the calling thread (an immediate error, say) must not
     * recurse into the next: the state says who continues, the caller's loop or the completion.
     */
    private static final class Caller implements Operation.Done {
        private static final int ISSUING = 0, WAITING = 1, DONE_EARLY = 2;

        private final ClosedLoop loop;
        private final AtomicInteger state = new AtomicInteger();
        private long startNanos;

        Caller(ClosedLoop loop) {
            this.loop = loop;
        }

        void next() {
            while (loop.running) {
                state.set(ISSUING);
                int key = loop.keySet.next(ThreadLocalRandom.current());
                startNanos = System.nanoTime();
                try {
                    loop.operation.call(key, this);
                } catch (RuntimeException e) {
                    failed(e);
                }
                if (state.compareAndSet(ISSUING, WAITING)) {
                    return; // the completion continues
                }
                // answered on this very thread (a slice, a failure mode, a cache): continue in a task of its own, so
                // that a caller answered without I/O never spins on an event loop. On an event loop that task is
                // the loop's next, as a request's would be: an application's next call of a leased key comes from
                // its event loop, where a call to Redis is gathered into a run; from the common pool it would go
                // alone. Off any loop (a peer's client thread), the common pool.
                if (loop.running) {
                    io.vertx.core.Context context = io.vertx.core.Vertx.currentContext();
                    if (context != null && io.vertx.core.Context.isOnEventLoopThread()) {
                        context.runOnContext(v -> next());
                    } else {
                        ForkJoinPool.commonPool().execute(this::next);
                    }
                    return;
                }
            }
            loop.inFlight.decrementAndGet();
        }

        @Override
        public void decided(boolean admitted) {
            loop.recorder.recordValue(Math.max(1, (System.nanoTime() - startNanos) / 1000));
            loop.succeeded.increment();
            if (!admitted) {
                loop.denied.increment();
            }
            proceed();
        }

        @Override
        public void failed(Throwable failure) {
            loop.failures.increment();
            if (failure != null) {
                loop.lastFailure = failure;
            }
            proceed();
        }

        private void proceed() {
            if (state.compareAndSet(ISSUING, DONE_EARLY)) {
                return; // the issuing loop continues
            }
            next();
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * What one run measured: the latencies of the calls Redis decided, how many it decided and admitted, how
     * many failed, and what the counters counted (per connection, say) and the tallies counted (Redis commands,
     * slices: {@link LimiterSuite.Tally}) over the measured period. {@code jitCpuNanos}: the part of {@code jvmCpuNanos}
     * the JIT compiler threads spent ({@link JitCpu}), -1 where it cannot be read.
     */
    record Measurement(Histogram histogram, long succeeded, long admitted, long failures, long elapsedNanos,
            Throwable lastFailure, long jvmCpuNanos, long jitCpuNanos, double redisCpuNanos, long[] counted,
            long[] tallied, long allocatedBytes) {

        /** Bytes the whole process allocated per call answered (callers, client, GC threads: every live thread). */
        double allocatedPerCall() {
            return succeeded == 0 ? Double.NaN : (double) allocatedBytes / succeeded;
        }

        /** Calls answered by Redis, per second (failed and fallback calls excluded). */
        double decisionsPerSecond() {
            return succeeded * 1e9 / elapsedNanos;
        }

        /** CPU microseconds this process spent per decision Redis made; NaN when it made none. */
        double jvmCpuMicrosPerCall() {
            return perDecision(jvmCpuNanos);
        }

        /** CPU microseconds the JIT compiler threads spent per decision; NaN when not counted or none was made. */
        double jitCpuMicrosPerCall() {
            return jitCpuNanos < 0 ? Double.NaN : perDecision(jitCpuNanos);
        }

        /** {@link #jvmCpuMicrosPerCall()} without the JIT's part; NaN when that is not counted. */
        double jvmCpuWithoutJitMicrosPerCall() {
            return jitCpuNanos < 0 ? Double.NaN : perDecision(jvmCpuNanos - jitCpuNanos);
        }

        /** CPU microseconds Redis spent per decision it made; NaN when it made none. */
        double redisCpuMicrosPerCall() {
            return perDecision(redisCpuNanos);
        }

        private double perDecision(double nanos) {
            return succeeded == 0 ? Double.NaN : nanos / 1000 / succeeded;
        }

        double micros(double percentile) {
            return histogram.getValueAtPercentile(percentile);
        }
    }
}
