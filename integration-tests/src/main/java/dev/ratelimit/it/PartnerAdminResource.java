package dev.ratelimit.it;

import java.time.Duration;

import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;

import dev.ratelimit.RateLimitKeys;
import dev.ratelimit.RateLimitOverride;
import dev.ratelimit.RateLimiter;
import io.smallrye.mutiny.Uni;

/**
 * An operator's console for the partner API: a partner's own limit, raised or lowered live on every instance (the
 * {@code partner} policy has {@code overrides=true}), for a number of days or until cleared.
 */
@Path("/admin/partners/{apiKey}/override")
@RolesAllowed("admin")
public class PartnerAdminResource {

    @Inject
    RateLimiter limiter;

    /** Sets the partner's limit per minute; {@code days}: how long it applies (for ever when not given). */
    @PUT
    public Uni<Response> set(@PathParam("apiKey") String apiKey, @QueryParam("limit") long limit,
            @QueryParam("days") Integer days) {
        RateLimitOverride o = RateLimitOverride.ofLimit(limit);
        if (days != null) {
            o = o.expiringAfter(Duration.ofDays(days));
        }
        try {
            return limiter.setOverride("partner", RateLimitKeys.header(apiKey), o)
                    .replaceWith(Response.noContent().build());
        } catch (IllegalArgumentException e) {
            // a limit out of range: the message names it
            return Uni.createFrom().item(Response.status(400).entity(e.getMessage()).build());
        }
    }

    /** The partner's own values: {@code limit=..., expires=...}, or 404 when it has none. */
    @GET
    public Uni<Response> get(@PathParam("apiKey") String apiKey) {
        return limiter.override("partner", RateLimitKeys.header(apiKey))
                .map(o -> o.map(v -> Response.ok("limit=" + v.limit() + (v.expiresAt() == null ? ""
                        : ", expires=" + v.expiresAt())).build()).orElse(Response.status(404).build()));
    }

    /** Back to the policy's 5 per minute. */
    @DELETE
    public Uni<Response> clear(@PathParam("apiKey") String apiKey) {
        return limiter.clearOverride("partner", RateLimitKeys.header(apiKey))
                .replaceWith(Response.noContent().build());
    }
}
