package dev.ratelimit.benchmark;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import dev.ratelimit.RateLimit;
import io.smallrye.common.annotation.NonBlocking;

/**
 * The HTTP suite's endpoints: identical but for {@code @RateLimit}. Non-blocking, so the difference
 * is the limiter's and not a worker-thread hand-off's.
 */
@Path("/")
@Produces(MediaType.TEXT_PLAIN)
public class BenchmarkResource {

    @GET
    @Path("unlimited")
    @NonBlocking
    public String unlimited() {
        return "ok";
    }

    /** One client (wrk, from 127.0.0.1): the hot key. */
    @GET
    @Path("limited")
    @NonBlocking
    @RateLimit("http")
    public String limited() {
        return "ok";
    }

    /** One client, the hot key, with quota leasing: most requests decided from the instance's slice. */
    @GET
    @Path("limited-leased")
    @NonBlocking
    @RateLimit("http-leased")
    public String limitedLeased() {
        return "ok";
    }

    /** Many clients, told apart by the {@code X-Client} header. */
    @GET
    @Path("limited-keys")
    @NonBlocking
    @RateLimit("http-keys")
    public String limitedKeys() {
        return "ok";
    }
}
