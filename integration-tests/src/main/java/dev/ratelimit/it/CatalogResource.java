package dev.ratelimit.it;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import dev.ratelimit.RateLimit;

/**
 * Hot endpoints shared by every client (key {@code global}) with quota leasing ({@code lease=auto}): each instance
 * decides most calls from slices of the budget it leases from Redis, without a Redis call per request.
 */
@Path("/api")
public class CatalogResource {

    /** {@code catalog}: 600 an hour for everyone together, on a fixed window: exactly 600, leased or not. */
    @GET
    @Path("/catalog")
    @RateLimit("catalog")
    public String catalog() {
        return "catalog";
    }

    /** {@code feed}: a bucket of 300 refilling at 300 an hour for everyone together. */
    @GET
    @Path("/feed")
    @RateLimit("feed")
    public String feed() {
        return "feed";
    }
}
