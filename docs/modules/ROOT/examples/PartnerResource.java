package dev.ratelimit.it;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;

import dev.ratelimit.RateLimit;

/**
 * A partner API limited per API key (header X-Api-Key).
 */
@Path("/partner")
public class PartnerResource {

    @GET
    @RateLimit("partner")
    public String quote(@HeaderParam("X-Api-Key") String apiKey) {
        return "quote for " + apiKey;
    }
}
