package dev.ratelimit.it;

import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;

/**
 * A sign-in limited by the {@code sign-in} policy (no annotation: {@code paths}), which counts failed attempts only
 * ({@code count=failures}): a user gets 5 wrong passwords per 15 minutes, then is locked out for 15 minutes
 * ({@code block-for}); signing in successfully costs nothing. The demo's one password is {@code demo}.
 */
@Path("/api/sign-in")
public class SignInResource {

    @POST
    public Response signIn(@HeaderParam("X-User") String user, @HeaderParam("X-Password") String password) {
        return "demo".equals(password) ? Response.ok("welcome " + user).build() : Response.status(401).build();
    }
}
