package dev.ratelimit.it;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/**
 * Documentation pages: no annotation, limited by the `docs` policy, whose `paths` is the prefix
 * {@code /docs/*}.
 */
@Path("/docs")
public class DocsResource {

    @GET
    public String index() {
        return "docs";
    }

    @GET
    @Path("/{page}")
    public String page(@PathParam("page") String page) {
        return "doc " + page;
    }

    @GET
    @Path("/{section}/{page}")
    public String sectionPage(@PathParam("section") String section, @PathParam("page") String page) {
        return "doc " + section + " / " + page;
    }
}
