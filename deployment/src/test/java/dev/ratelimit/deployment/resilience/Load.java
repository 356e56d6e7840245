package dev.ratelimit.deployment.resilience;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Concurrent callers for the resilience tests: each thread runs {@code task(thread, iteration)} in a loop, with a
 * short pause between calls (a 2-core machine must keep CPU for Redis and the event loop), until stopped. Anything a
 * call throws is collected, never swallowed.
 */
final class Load {

    interface Task {
        void run(int thread, int iteration) throws Exception;
    }

    private final List<Thread> threads = new ArrayList<>();
    private final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
    private volatile boolean stopped;

    private Load() {
    }

    static Load start(String name, int threads, long pauseMicros, Task task) {
        Load load = new Load();
        for (int t = 0; t < threads; t++) {
            int index = t;
            Thread thread = new Thread(() -> {
                for (int i = 0; !load.stopped; i++) {
                    try {
                        task.run(index, i);
                    } catch (Throwable e) {
                        load.errors.add(e);
                    }
                    if (pauseMicros > 0) {
                        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(pauseMicros));
                    }
                }
            }, name + "-" + t);
            thread.setDaemon(true);
            load.threads.add(thread);
        }
        load.threads.forEach(Thread::start);
        return load;
    }

    /** Stops the callers and waits for their last call. */
    Load stop() throws InterruptedException {
        stopped = true;
        for (Thread t : threads) {
            t.join(10_000);
        }
        return this;
    }

    /** What the calls threw. */
    Queue<Throwable> errors() {
        return errors;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
