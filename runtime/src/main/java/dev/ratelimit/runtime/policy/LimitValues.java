package dev.ratelimit.runtime.policy;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

import dev.ratelimit.runtime.algorithm.Algorithm;

/**
 * The limit, window and burst of a policy or of one of its plans, as configured: each may be unset.
 *
 * @param limit units per window
 * @param window the window
 * @param burst capacity of an idle key (bucket algorithms)
 */
public record LimitValues(OptionalInt limit, Optional<Duration> window, OptionalInt burst) {

    /** These values, each unset one taken from {@code base} (a plan's values over its policy's). */
    public LimitValues orElse(LimitValues base) {
        return new LimitValues(limit.isPresent() ? limit : base.limit, window.or(base::window),
                burst.isPresent() ? burst : base.burst);
    }

    /** Whether no value is set. */
    public boolean isEmpty() {
        return limit.isEmpty() && window.isEmpty() && burst.isEmpty();
    }

    /** The largest admissible cost with these values, when the limit is known: the burst for bucket algorithms. */
    public OptionalInt capacity(Algorithm algorithm) {
        if (limit.isEmpty()) {
            return OptionalInt.empty();
        }
        return algorithm.usesBurst() && burst.isPresent() ? burst : limit;
    }

    /** The attribute that sets the capacity: {@code burst} for a bucket algorithm with one, else {@code limit}. */
    public String capacityAttribute(Algorithm algorithm) {
        return algorithm.usesBurst() && burst.isPresent() ? "burst" : "limit";
    }
}
