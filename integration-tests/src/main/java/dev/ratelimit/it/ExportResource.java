package dev.ratelimit.it;

import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimiter;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;

/**
 * Exports, limited in code rather than by annotation: the cost is only known from the request (one unit per page),
 * the plan from the caller's roles, and each export is charged to the user and to the whole site at once.
 */
@Path("/exports")
public class ExportResource {

    static final int MAX_PAGES = 10;

    @Inject
    RateLimiter limiter;

    @Inject
    SecurityIdentity identity;

    @POST
    @RolesAllowed("user")
    public Uni<String> export(@QueryParam("pages") int pages) {
        if (pages < 1 || pages > MAX_PAGES) {
            throw new BadRequestException("pages: 1 to " + MAX_PAGES);
        }
        String user = identity.getPrincipal().getName();
        String plan = identity.hasRole("premium") ? "premium" : null;
        // tag::check[]
        RateLimitCheck mine = RateLimitCheck.of("exports", user).cost(pages).onPlan(plan);
        RateLimitCheck site = RateLimitCheck.of("exports-site", "all").cost(pages);
        return limiter.check(mine, site) // both charged, or neither
                .map(d -> {
                    if (!d.allowed()) {
                        throw new RateLimitExceededException(d); // a 429 with the limiter's headers
                    }
                    return user + ": " + pages + " pages exported";
                });
        // end::check[]
    }
}
