package dev.ratelimit;

import io.vertx.core.http.HttpServerRequest;

/**
 * Says which HTTP requests a policy does not count at all: an internal caller's header, a role, a health probe.
 * Implement it as a CDI bean; an application may have several, and a request is exempt from a policy when any of
 * them says so (or when its client address is in the policy's {@code exempt-addresses}). An exempt request is
 * neither charged nor denied by that policy and gets none of its rate-limit headers; it is counted in
 * {@code ratelimit.decisions} under the outcome {@code exempt}.
 * <p>
 * It is asked inside HTTP requests only (by the REST filter, and by the interceptor when an annotated bean is called
 * during one), once per policy that applies to the request, before the request's key is resolved, on the thread that
 * decides (often an event loop: do not block). Inject what it needs, such as the {@code SecurityIdentity}. A bean
 * that throws exempts nothing: the request is counted, and the failure is logged once per policy and exception type.
 */
public interface Exemption {

    /** Whether {@code policy} does not count this request. */
    boolean exempt(String policy, HttpServerRequest request);
}
