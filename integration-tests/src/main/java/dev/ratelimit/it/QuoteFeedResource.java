package dev.ratelimit.it;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

import io.smallrye.mutiny.Uni;

/** Quotes relayed from the partner's feed ({@link QuoteFeed}): slow rather than refused when the feed is busy. */
@Path("/api/quotes-feed")
public class QuoteFeedResource {

    @Inject
    QuoteFeed feed;

    @GET
    @Path("/{symbol}")
    public Uni<String> quote(@PathParam("symbol") String symbol) {
        return feed.latest(symbol);
    }
}
