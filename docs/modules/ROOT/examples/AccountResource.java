package dev.ratelimit.it;

import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.SecurityContext;

import dev.ratelimit.RateLimit;

/**
 * The caller's account: limited per signed-in user (policy {@code per-user}, key {@code principal}).
 * Anonymous callers of the public greeting are limited by address instead.
 */
@Path("/account")
public class AccountResource {

    @GET
    @RolesAllowed("user")
    @RateLimit("per-user")
    public String me(@Context SecurityContext security) {
        return security.getUserPrincipal().getName();
    }

    @GET
    @Path("/greeting")
    @PermitAll
    @RateLimit("per-user")
    public String greeting(@Context SecurityContext security) {
        return security.getUserPrincipal() == null ? "hello, guest" : "hello, " + security.getUserPrincipal().getName();
    }
}
