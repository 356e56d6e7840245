package dev.ratelimit.it;

import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import io.smallrye.common.annotation.Blocking;

/**
 * Calls the limited mailer from REST: a denial inside the bean becomes a 429 with Retry-After.
 */
@Path("/mail")
public class MailResource {

    @Inject
    Mailer mailer;

    @POST
    @Blocking
    public String send(@QueryParam("to") String to) {
        return mailer.send(to);
    }
}
