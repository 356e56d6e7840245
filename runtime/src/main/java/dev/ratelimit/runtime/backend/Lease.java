package dev.ratelimit.runtime.backend;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

import org.jboss.logging.Logger;

import dev.ratelimit.runtime.policy.Policy;

/**
 * The slots one call took in its {@code concurrency} policies, freed by running it (once: the decision holding it
 * sees to that). Freeing never blocks: the backend's reply is not awaited, and a failure is logged at DEBUG, since the
 * slot frees itself once the policy's window has passed.
 */
public final class Lease implements Runnable {

    private static final Logger LOG = Logger.getLogger(Lease.class);

    private final RateLimitBackend backend;
    private final Policy[] policies;
    private final String[] keys;
    private final long[] costs;
    private final String id;

    public Lease(RateLimitBackend backend, Policy[] policies, String[] keys, long[] costs, String id) {
        this.backend = backend;
        this.policies = policies;
        this.keys = keys;
        this.costs = costs;
        this.id = id;
    }

    /** This lease's name in the backend. */
    public String id() {
        return id;
    }

    @Override
    public void run() {
        try {
            backend.release(policies, keys, costs, id).subscribe().with(ignored -> {
            }, this::failed);
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    private void failed(Throwable failure) {
        LOG.debugf("Could not free the concurrency slots of lease %s on the %s backend (%s); they are free once "
                + "their window has passed", id, backend.name(), failure);
    }

    /** Whether a call of these policies takes slots when charged. */
    public static boolean needed(Policy[] policies) {
        for (Policy p : policies) {
            if (p.algorithm().holdsLeases()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Lease ids unique across instances and restarts: a random prefix drawn when the generator is made (at run time,
     * never baked into a native image), then a counter.
     */
    public static final class Ids {
        private final String prefix;
        private final AtomicLong next = new AtomicLong();

        public Ids() {
            this.prefix = Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE, 36) + ".";
        }

        /** A new id. */
        public String next() {
            return prefix + Long.toString(next.incrementAndGet(), 36);
        }
    }
}
