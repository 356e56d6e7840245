package dev.ratelimit;

import jakarta.ws.rs.core.Response;

/**
 * Shapes the response to a denied HTTP request: a bean of the application implementing it (one at most) gives its
 * status, body and headers of its own, such as a JSON envelope of your API's errors, a link to support or a localized
 * message. Whatever it returns, the limiter adds {@code Retry-After} and the rate-limit headers (they replace headers
 * of those names it set). It answers every denial of an HTTP request: by the filter (a {@code paths} policy, an
 * annotated resource method) and by a limited bean inside a REST call ({@link RateLimitExceededException}).
 *
 * <pre>
 * &#64;ApplicationScoped
 * public class ApiErrors implements RateLimitResponder {
 *     &#64;Override
 *     public Response denied(RateLimitDecision decision, int status) {
 *         return Response.status(status).type(MediaType.APPLICATION_JSON)
 *                 .entity(new ApiError("RATE_LIMITED", "Slow down: retry in " + decision.retryAfterSeconds() + " s"))
 *                 .build();
 *     }
 * }
 * </pre>
 */
public interface RateLimitResponder {

    /**
     * The response to a denied request.
     *
     * @param decision the denial: which policies denied, the wait, what is left
     * @param status the status the limiter would answer: 429, or 503 for a {@code fail-closed} denial with
     *        {@code quarkus.ratelimit.fail-closed-status=503}
     * @return the response, or {@code null} for the limiter's own (an RFC 9457 {@code application/problem+json} body)
     */
    Response denied(RateLimitDecision decision, int status);
}
