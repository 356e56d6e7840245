package dev.ratelimit.it;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/**
 * The sign-in page: no annotation, limited by the `login` policy, whose `paths` is the exact path
 * {@code /api/login}.
 */
@Path("/api")
public class LoginResource {

    @GET
    @Path("/login")
    public String login() {
        return "sign in";
    }
}
