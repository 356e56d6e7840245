package dev.ratelimit.benchmark;

/**
 * One asynchronous call of a system under test, in its own native style (a {@code Uni}, a Vert.x
 * future, a {@code CompletionStage}), so no adapter adds cost to one contender and not another.
 */
@FunctionalInterface
interface Operation {

    /**
     * Starts one call for key number {@code key} (each contender maps it to its own key names and
     * objects beforehand, so no lookup is measured); {@code done} must be invoked exactly once.
     */
    void call(int key, Done done);

    /** How a call ended. */
    interface Done {
        /**
         * A decision that came from Redis, and whether it admitted the call. Every contender is set to
         * admit far more than it is asked, so a denial means a contender decided something else than
         * what is measured: counted, so the report can say so instead of assuming it.
         */
        void decided(boolean admitted);

        /** A reply from Redis that carries no decision of its own (the ceiling's {@code 1}): an admission. */
        default void ok() {
            decided(true);
        }

        /**
         * A call that did not get its answer from Redis: {@code failure} is the error, or {@code null}
         * when the limiter answered from its failure mode (a fallback decision is not a Redis decision).
         */
        void failed(Throwable failure);
    }
}
