package dev.ratelimit.it;

import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import io.smallrye.mutiny.Uni;

/**
 * A device's PIN check: 3 attempts per 10 seconds per device ({@code X-Device}); the fourth locks the device out for a
 * minute ({@code block-for}), whatever the window says. Support lifts a lock-out with {@code DELETE}.
 */
@Path("/api/pin")
public class PinResource {

    @Inject
    RateLimiter limiter;

    @GET
    @RateLimit("pin")
    public String verify() {
        return "checked";
    }

    /** Lifts a device's lock-out (and resets its attempts), as a support tool would. */
    @DELETE
    public Uni<String> unlock(@HeaderParam("X-Device") String device) {
        // the identity the header key source derives from the header's value
        return limiter.reset("pin", "hdr=" + device).replaceWith("unlocked");
    }
}
