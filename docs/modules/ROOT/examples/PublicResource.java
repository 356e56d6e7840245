package dev.ratelimit.it;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/**
 * Public pages: no annotation, limited by the `public` policy's `paths`.
 */
@Path("/public")
public class PublicResource {

    @GET
    @Path("/{page}")
    public String page(@PathParam("page") String page) {
        return "page " + page;
    }
}
