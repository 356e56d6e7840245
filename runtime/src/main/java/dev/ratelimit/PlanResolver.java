package dev.ratelimit;

import io.vertx.core.http.HttpServerRequest;

/**
 * Says which plan of a policy an HTTP request is on, for policies with plans
 * ({@code quarkus.ratelimit.policies."<name>".plans."<plan>".*}). Implement it as a CDI bean (at most one); it is
 * asked inside HTTP requests only, once per policy with plans that applies to the request, on the thread that
 * decides (often an event loop: do not block). Inject what it needs, such as the {@code SecurityIdentity}.
 * <p>
 * Without such a bean, or outside an HTTP request, every request is on the policy's own values (its base plan).
 */
public interface PlanResolver {

    /**
     * The plan this request is on for {@code policy}, or {@code null} for the policy's own values. A name the policy
     * has no plan for also gets the policy's own values (and a warning in the log, once per name).
     */
    String plan(String policy, HttpServerRequest request);
}
