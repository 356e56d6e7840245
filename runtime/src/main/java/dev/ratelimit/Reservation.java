package dev.ratelimit;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import io.smallrye.mutiny.Uni;

/**
 * Checks charged at an estimated cost before the work, and settled at the actual cost when it ends: what
 * {@link RateLimiter#reserve} gives. A refund gives units back (never above capacity), a debit charges more (the key
 * may go into debt, at most one capacity, and is denied until it is paid off), in the same atomic step as the key's
 * state, on every instance at once:
 *
 * <pre>
 * Reservation r = limiter.reserveBlocking(RateLimitCheck.of("llm-tokens", tenant).cost(4000));
 * if (!r.allowed()) { ... r.decision().retryAfter() ... }
 * Completion c = model.complete(prompt);
 * r.settle(c.totalTokens()).await().indefinitely();     // gives back 4000 - totalTokens, or charges the excess
 * </pre>
 *
 * What a refund means per algorithm: a bucket refills by those units at once (never above its burst); a window gives
 * them back to the window the reservation was charged in, if it is still counted (the sliding-window counter's
 * previous window too); a sliding log forgets that many of the entries it logged for the reservation; a
 * {@code concurrency} policy has nothing to settle (its slot is freed when the work ends). A debit is charged now,
 * whatever the algorithm's limit, up to one capacity beyond it: a bucket's level goes below empty and refills from
 * there, a window counts more than its limit (a fixed window forgives it when it ends), a log logs more entries. A
 * reservation never settled (its instance died, the caller forgot) stays charged at its estimate.
 * <p>
 * Each check is settled once: a later settlement of it does nothing. A reservation the backend did not decide (a failure mode answered, or the
 * deny cache) has nothing to settle.
 */
public final class Reservation {

    private final RateLimitDecision decision;
    private final List<RateLimitCheck> checks;
    /** Gives back units per check (same order; negative: charges more); null when there is nothing to settle. */
    private final Function<long[], Uni<Void>> refund;
    /** Per check, whether it was settled. */
    private final AtomicBoolean[] settled;

    /**
     * A reservation, as the limiter makes it.
     *
     * @param refund gives back the units of each check (in the order of {@code checks}); null: nothing to settle
     */
    public Reservation(RateLimitDecision decision, List<RateLimitCheck> checks, Function<long[], Uni<Void>> refund) {
        this.decision = decision;
        this.checks = List.copyOf(checks);
        this.refund = decision.allowed() ? refund : null;
        this.settled = new AtomicBoolean[this.checks.size()];
        for (int i = 0; i < settled.length; i++) {
            settled[i] = new AtomicBoolean();
        }
    }

    /** The decision on the reservation, at its estimated costs. */
    public RateLimitDecision decision() {
        return decision;
    }

    /** The checks reserved, at their estimated costs. */
    public List<RateLimitCheck> checks() {
        return checks;
    }

    /** Whether the reservation was admitted (and charged at its estimates). */
    public boolean allowed() {
        return decision.allowed();
    }

    /**
     * Settles a reservation of one check at {@code actualCost}: what it reserved above that is given back, what it
     * cost above its estimate is charged.
     *
     * @throws IllegalStateException when the reservation has several checks (name them: {@link #settle(Map)})
     * @throws IllegalArgumentException when {@code actualCost} is negative
     */
    public Uni<Void> settle(long actualCost) {
        if (checks.size() != 1) {
            throw new IllegalStateException("this reservation has " + checks.size()
                    + " checks: settle each policy's actual cost with settle(Map.of(policy, cost, ...))");
        }
        return settle(Map.of(checks.get(0).policy(), actualCost));
    }

    /**
     * Settles the checks of the policies named, each at its actual cost (below its estimate: the rest is given back;
     * above it: the excess is charged); a check of a policy not named keeps its estimate.
     *
     * @throws IllegalArgumentException when a name is none of the reservation's policies, or a cost is negative
     */
    public Uni<Void> settle(Map<String, Long> actualCostByPolicy) {
        long[] refunds = new long[checks.size()];
        for (Map.Entry<String, Long> e : actualCostByPolicy.entrySet()) {
            boolean found = false;
            for (int i = 0; i < checks.size(); i++) {
                RateLimitCheck c = checks.get(i);
                if (!c.policy().equals(e.getKey())) {
                    continue;
                }
                found = true;
                long actual = e.getValue();
                if (actual < 0) {
                    throw new IllegalArgumentException("policy '" + c.policy() + "' is settled at " + actual
                            + ": an actual cost is 0 or more");
                }
                refunds[i] = c.cost() - actual;
            }
            if (!found) {
                throw new IllegalArgumentException("policy '" + e.getKey() + "' is not one of this reservation's: "
                        + checks.stream().map(RateLimitCheck::policy).toList());
            }
        }
        if (refund == null) {
            return Uni.createFrom().voidItem();
        }
        boolean any = false;
        for (int i = 0; i < refunds.length; i++) {
            if (actualCostByPolicy.containsKey(checks.get(i).policy()) && !settled[i].compareAndSet(false, true)) {
                refunds[i] = 0; // settled before
            }
            any |= refunds[i] != 0;
        }
        return any ? refund.apply(refunds) : Uni.createFrom().voidItem();
    }

    /** Gives everything back: the work did not happen. The same as settling every check at 0. */
    public Uni<Void> cancel() {
        Map<String, Long> zero = new java.util.HashMap<>();
        checks.forEach(c -> zero.put(c.policy(), 0L));
        return settle(zero);
    }

    /** Whether every check has been settled (or cancelled). */
    public boolean settled() {
        for (AtomicBoolean s : settled) {
            if (!s.get()) {
                return false;
            }
        }
        return true;
    }

    /** Whether it reserved a check of {@code policy}. */
    public boolean reserved(String policy) {
        for (RateLimitCheck c : checks) {
            if (c.policy().equals(policy)) {
                return true;
            }
        }
        return false;
    }
}
