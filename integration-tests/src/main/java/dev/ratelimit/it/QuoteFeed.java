package dev.ratelimit.it;

import jakarta.enterprise.context.ApplicationScoped;

import dev.ratelimit.RateLimit;
import io.smallrye.mutiny.Uni;

/**
 * An outbound client of a partner's API that allows 10 calls a second across all our instances: with {@code max-wait},
 * a call beyond that waits its turn (on a timer, no thread held) instead of failing.
 */
// tag::outbound[]
@ApplicationScoped
public class QuoteFeed {

    @RateLimit("quote-feed")
    public Uni<String> latest(String symbol) {
        return Uni.createFrom().item(() -> symbol + ": 42.00"); // the partner's API would be called here
    }
}
// end::outbound[]
