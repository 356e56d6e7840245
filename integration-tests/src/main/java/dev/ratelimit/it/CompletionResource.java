package dev.ratelimit.it;

import jakarta.inject.Inject;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitSettlement;

/**
 * A completion metered in tokens per tenant ({@code X-Tenant}): 1,000 tokens are reserved before the work, and the
 * tokens it really used (here the {@code tokens} query parameter stands for the model's count) are settled after it:
 * what it did not use goes back, what it used beyond is charged.
 */
@Path("/api/complete")
public class CompletionResource {

    @Inject
    RateLimitSettlement settlement;

    @POST
    @RateLimit(value = "llm-tokens", cost = 1000, settle = true)
    public String complete(@HeaderParam("X-Tenant") String tenant, @QueryParam("tokens") long tokens) {
        settlement.settle("llm-tokens", tokens);
        return "completed with " + tokens + " tokens";
    }
}
