package dev.ratelimit;

/**
 * Settles the actual cost of the current call of a method annotated {@code @RateLimit(value = ..., cost = estimate,
 * settle = true)}: inject it and say what the call really cost before the method returns.
 *
 * <pre>
 * &#64;Inject
 * RateLimitSettlement settlement;
 *
 * &#64;POST
 * &#64;RateLimit(value = "llm-tokens", cost = 4000, settle = true)
 * public Completion complete(Prompt prompt) {
 *     Completion c = model.complete(prompt);
 *     settlement.settle("llm-tokens", c.totalTokens());   // gives back 4000 - totalTokens, or charges the excess
 *     return c;
 * }
 * </pre>
 *
 * The settlement is sent without blocking the caller (a failure leaves the estimate charged, logged at DEBUG). A call
 * that never settles keeps its estimate; a policy is settled once per call (see {@link Reservation}).
 */
public interface RateLimitSettlement {

    /**
     * Settles {@code policy}'s reservation of the current call at {@code actualCost}.
     *
     * @throws IllegalStateException when the current call reserved nothing of {@code policy} (the method is not
     *         annotated with that policy and {@code settle = true}, or this is not the call's thread)
     * @throws IllegalArgumentException when {@code actualCost} is negative
     */
    void settle(String policy, long actualCost);
}
