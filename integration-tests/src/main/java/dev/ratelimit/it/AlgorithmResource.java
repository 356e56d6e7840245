package dev.ratelimit.it;

import java.time.Duration;

import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import dev.ratelimit.RateLimit;
import io.smallrye.mutiny.Uni;

/**
 * One endpoint per algorithm, each with its own policy (see application.properties).
 */
@Path("/algorithms")
public class AlgorithmResource {

    @GET
    @Path("/fixed-window")
    @RateLimit("fixed-window")
    public String fixedWindow() {
        return "ok";
    }

    @GET
    @Path("/sliding-window-log")
    @RateLimit("sliding-window-log")
    public String slidingWindowLog() {
        return "ok";
    }

    @GET
    @Path("/sliding-window-counter")
    @RateLimit("sliding-window-counter")
    public String slidingWindowCounter() {
        return "ok";
    }

    @GET
    @Path("/token-bucket")
    @RateLimit("token-bucket")
    public String tokenBucket() {
        return "ok";
    }

    @GET
    @Path("/leaky-bucket")
    @RateLimit("leaky-bucket")
    public String leakyBucket() {
        return "ok";
    }

    @GET
    @Path("/gcra")
    @RateLimit("gcra")
    public String gcra() {
        return "ok";
    }

    /** Holds its slot for {@code ms} milliseconds without blocking a thread; freed when the response ends. */
    @GET
    @Path("/concurrency")
    @RateLimit("concurrency")
    public Uni<String> concurrency(@QueryParam("ms") @DefaultValue("0") long ms) {
        Uni<String> ok = Uni.createFrom().item("ok");
        return ms == 0 ? ok : ok.onItem().delayIt().by(Duration.ofMillis(ms));
    }

    /**
     * Holds its slot while a worker thread sleeps {@code ms} milliseconds: the slot is the work's, freed when the
     * method has returned and its response ended, whether or not the client is still there.
     */
    @GET
    @Path("/concurrency/blocking")
    @RateLimit("concurrency")
    public String concurrencyBlocking(@QueryParam("ms") @DefaultValue("0") long ms) throws InterruptedException {
        if (ms > 0) {
            Thread.sleep(ms);
        }
        return "ok";
    }

    @GET
    @Path("/shadow")
    @RateLimit("shadow")
    public String shadow() {
        return "ok";
    }

    @GET
    @Path("/expensive")
    @RateLimit(value = "expensive", cost = 4)
    public String expensive() {
        return "ok";
    }
}
