package dev.ratelimit.runtime.openapi;

import java.util.ArrayList;
import java.util.List;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.headers.Header;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;

import dev.ratelimit.runtime.http.RateLimitHeaders;

/**
 * What the document says of rate limiting: the headers and the problem body as components, each written once and
 * referenced by every limited operation, and the {@code 429} response built from them.
 */
final class RateLimitResponses {

    static final String RETRY_AFTER = "Retry-After";
    static final String RATE_LIMIT_POLICY = "RateLimit-Policy";
    static final String RATE_LIMIT = "RateLimit";
    static final String LIMIT = "X-RateLimit-Limit";
    static final String REMAINING = "X-RateLimit-Remaining";
    static final String RESET = "X-RateLimit-Reset";
    /** The name of the problem body's schema component. */
    static final String PROBLEM = "RateLimitProblem";
    static final String PROBLEM_JSON = "application/problem+json";

    private final boolean ietf;
    private final boolean legacy;

    /** With the header families the filter sends ({@code quarkus.ratelimit.http.headers}). */
    RateLimitResponses(boolean ietf, boolean legacy) {
        this.ietf = ietf;
        this.legacy = legacy;
    }

    /** The rate-limit headers every limited response carries (not {@code Retry-After}, only on a 429). */
    List<String> limitHeaders() {
        List<String> names = new ArrayList<>(5);
        if (ietf) {
            names.add(RATE_LIMIT_POLICY);
            names.add(RATE_LIMIT);
        }
        if (legacy) {
            names.add(LIMIT);
            names.add(REMAINING);
            names.add(RESET);
        }
        return names;
    }

    /** A 429 naming the enforced policies that may deny the operation. */
    APIResponse tooManyRequests(List<String> policies) {
        StringBuilder names = new StringBuilder();
        for (String p : policies) {
            names.append(names.length() == 0 ? "'" : ", '").append(p).append('\'');
        }
        APIResponse response = OASFactory.createAPIResponse()
                .description("Too Many Requests: over the quota of rate-limit " + (policies.size() == 1 ? "policy " : "policies ")
                        + names + ". Retry after the seconds `Retry-After` gives.")
                .addHeader(RETRY_AFTER, ref(RETRY_AFTER));
        for (String name : limitHeaders()) {
            response.addHeader(name, ref(name));
        }
        return response.content(OASFactory.createContent().addMediaType(PROBLEM_JSON,
                OASFactory.createMediaType().schema(OASFactory.createSchema().ref(PROBLEM))));
    }

    /** A reference to a header component. */
    static Header ref(String name) {
        return OASFactory.createHeader().ref(name);
    }

    /** Adds the components the responses refer to, leaving alone any of the same name the application defined. */
    void addComponents(Components components) {
        header(components, RETRY_AFTER, integer(1), "1",
                "Seconds, rounded up and at least 1, until this request could be admitted by every policy that denied it.");
        if (ietf) {
            header(components, RATE_LIMIT_POLICY, string(), "\"api\";q=100;w=60",
                    "The quota policies applied to the request (draft-ietf-httpapi-ratelimit-headers), one member per "
                            + "policy: its name, `q` its limit, `w` its window in seconds.");
            header(components, RATE_LIMIT, string(), "\"api\";r=42;t=17",
                    "The state of each quota (draft-ietf-httpapi-ratelimit-headers): `r` the units left, `t` the "
                            + "seconds, rounded up, until more become available.");
        }
        if (legacy) {
            header(components, LIMIT, integer(1), "100", "The limit of the most restrictive policy (fewest units left).");
            header(components, REMAINING, integer(0), "42", "The units left under the most restrictive policy.");
            header(components, RESET, integer(0), "17",
                    "Seconds until more quota becomes available under the most restrictive policy.");
        }
        if (components.getSchemas() == null || !components.getSchemas().containsKey(PROBLEM)) {
            components.addSchema(PROBLEM, problem());
        }
    }

    private static void header(Components components, String name, Schema schema, String example, String description) {
        if (components.getHeaders() == null || !components.getHeaders().containsKey(name)) {
            components.addHeader(name,
                    OASFactory.createHeader().description(description).schema(schema).example(example));
        }
    }

    /** The RFC 9457 problem detail a denial carries. */
    private static Schema problem() {
        return OASFactory.createSchema()
                .addType(SchemaType.OBJECT)
                .description("An RFC 9457 problem detail. A request over its quota has the type of "
                        + "draft-ietf-httpapi-ratelimit-headers; a denial because the limiter is unavailable "
                        + "(failure mode fail-closed) has the type about:blank and no violated-policies.")
                .addProperty("type", string().format("uri").example(RateLimitHeaders.QUOTA_EXCEEDED))
                .addProperty("title", string().example("Too Many Requests"))
                .addProperty("status", integer(100).example(429))
                .addProperty("detail", string().example("Rate limit exceeded"))
                .addProperty("violated-policies", OASFactory.createSchema().addType(SchemaType.ARRAY).items(string())
                        .description("Every enforced policy that denied the request."))
                .addProperty("policy", string().description("The denying policy that needs the longest wait."))
                .addProperty("retryAfter", integer(1).description("The same as the Retry-After header."))
                .required(List.of("type", "title", "status"));
    }

    private static Schema string() {
        return OASFactory.createSchema().addType(SchemaType.STRING);
    }

    private static Schema integer(int minimum) {
        return OASFactory.createSchema().addType(SchemaType.INTEGER).minimum(java.math.BigDecimal.valueOf(minimum));
    }
}
