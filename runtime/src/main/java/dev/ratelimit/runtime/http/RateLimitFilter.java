package dev.ratelimit.runtime.http;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.CompletionCallback;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;
import org.jboss.resteasy.reactive.server.SimpleResourceInfo;
import org.jboss.resteasy.reactive.server.core.LazyResponse;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimitResponder;
import dev.ratelimit.Reservation;
import dev.ratelimit.runtime.http.RateLimitHeaders.HeaderName;
import dev.ratelimit.runtime.policy.MethodTargets.Target;
import io.smallrye.mutiny.operators.AbstractUni;
import io.smallrye.mutiny.subscription.UniSubscriber;
import io.smallrye.mutiny.subscription.UniSubscription;
import io.vertx.core.MultiMap;
import io.vertx.ext.web.RoutingContext;

/**
 * Quarkus REST integration: decides annotated resource methods and path policies after matching
 * and before the body is read or the method runs, answers denials with 429, and writes the
 * rate-limit headers on every limited response. Registered only when the application uses
 * Quarkus REST.
 */
public class RateLimitFilter {

    /** The category the documentation names for shadow denials, kept where it always was. */
    private static final Logger LOG = Logger.getLogger("dev.ratelimit.runtime.RateLimitFilter");
    private static final String PROBLEM_JSON = "application/problem+json";
    /** The status of a request whose client left before it was admitted (it is never sent). */
    private static final int CLIENT_GONE = 499;

    private final HttpLimits http;

    RateLimitFilter(HttpLimits http) {
        this.http = http;
    }

    /**
     * Decides the request. Void, suspending and resuming the request itself rather than returning a {@code Uni}: Quarkus
     * REST subscribes to a filter's {@code Uni} through Mutiny with context propagation, which captured and restored
     * the CDI context around the callback on every request, the many without limits included (about 1 µs of CPU a
     * request, measured with the benchmark's HTTP suite). The limiter's decision needs none of it: the request goes on
     * where Quarkus REST resumes it, on its own context.
     */
    @ServerRequestFilter(priority = Priorities.AUTHORIZATION + 100, nonBlocking = true)
    public void decide(SimpleResourceInfo info, ResteasyReactiveContainerRequestContext context, RoutingContext rc) {
        Target target = http.methods().resource(info.getResourceClass(), info.getMethodName(), info.parameterTypes());
        if (target.specs().length == 0 && !http.hasPathPolicies()) {
            return;
        }
        // path policies see the path routing matched, not the spelling on the request line
        String path = http.hasPathPolicies() ? RoutedPath.of(context.getServerRequestContext()) : null;
        HttpLimits.RequestChecks checks = http.checks(target, rc, path, rc.request().method().name());
        if (checks == null) {
            RateLimitDecision denied = http.missingKeyDecision(target.specs(), rc, path, rc.request().method().name());
            http.headers().set(rc.response().headers(), denied, null);
            context.abortWith(tooManyRequests(denied));
            return;
        }
        if (target.specs().length > 0) {
            // the interceptor must not decide this invocation again (nor ask its exemptions: all exempt, none left)
            rc.put(HttpLimits.DECIDED_METHOD, target.methodKey());
        }
        if (checks.isEmpty()) {
            return;
        }
        Resume resume = new Resume(context, rc, http.headers().partitionKeys() ? HttpLimits.identities(checks) : null);
        if (checks.takesSlots() || checks.settles()) {
            // a slot lives as long as the request's processing: freed when Quarkus REST completes the request (the
            // method and the response have ended, whatever the client did), never when the connection closes, which
            // would free it while a method goes on, or never if it closed before the decision came; a reservation is
            // settled then, by the response's status
            ((ResteasyReactiveRequestContext) context.getServerRequestContext()).registerCompletionCallback(resume);
        }
        context.suspend();
        AbstractUni.subscribe(checks.settles()
                ? http.reserve(checks).invoke(resume::reserved).map(Reservation::decision)
                : http.decide(checks), resume);
    }

    /**
     * Resumes the request with the decision (or aborts it with a 429). No cancellation: the limiter always answers,
     * its timeout and failure modes included. Registered as the request's completion callback when the decision may
     * hold slots: it frees them when the request completes, whichever of the two comes last.
     */
    private final class Resume implements UniSubscriber<RateLimitDecision>, CompletionCallback {
        private final ResteasyReactiveContainerRequestContext context;
        private final RoutingContext rc;
        /** The decision once it came; with {@link #completed}, whichever is set second frees its slots. */
        private volatile RateLimitDecision decision;
        private volatile boolean completed;
        /** The reservation of policies counting by outcome, once it came; settled when the request completes. */
        private volatile Reservation reservation;
        /** The identities of the checks, in order, for the headers' {@code pk}; null without partition keys. */
        private final String[] identities;

        Resume(ResteasyReactiveContainerRequestContext context, RoutingContext rc, String[] identities) {
            this.context = context;
            this.rc = rc;
            this.identities = identities;
        }

        @Override
        public void onSubscribe(UniSubscription subscription) {
        }

        @Override
        public void onItem(RateLimitDecision d) {
            Response denial;
            try {
                rc.put(HttpLimits.DECISION, d);
                // the headers now, while the request waits for this decision: the response filter then has nothing
                // to look up on every response (the routing context's map, fetched again from memory, was a third of
                // the headers' cost)
                http.headers().set(rc.response().headers(), d, identities);
                if (d.allowed()) {
                    if (d.holdsSlots()) {
                        decision = d;
                        if (completed) {
                            d.release(); // cannot happen while suspended; freed all the same
                        }
                        if (rc.response().closed()) {
                            // the client left before the decision came: the method does not run for nobody, and the
                            // request completes at once, freeing the slots (nginx's 499: client closed request)
                            context.abortWith(Response.status(CLIENT_GONE).build());
                            return;
                        }
                    }
                    logShadow(d);
                    denial = null;
                } else {
                    denial = tooManyRequests(d);
                }
            } catch (RuntimeException e) {
                context.resume(e);
                return;
            }
            if (denial == null) {
                context.resume();
            } else {
                context.abortWith(denial); // resumes the request
            }
        }

        @Override
        public void onFailure(Throwable failure) {
            context.resume(failure);
        }

        /** The reservation came (before its decision is handled). */
        void reserved(Reservation r) {
            reservation = r;
            rc.put(Settlements.RESERVATION, r); // for the method's RateLimitSettlement
            if (completed) {
                http.settle(r, rc.response().getStatusCode()); // cannot happen while suspended; settled all the same
            }
        }

        @Override
        public void onComplete(Throwable failure) {
            completed = true;
            RateLimitDecision d = decision;
            if (d != null) {
                d.release();
            }
            Reservation r = reservation;
            if (r != null) {
                http.settle(r, rc.response().getStatusCode());
            }
        }
    }

    /**
     * Where the resource built its response with a header of a name the limiter sent, the limiter's value replaces it
     * rather than sitting beside it (the resource's headers are copied onto the response after ours were set on it).
     */
    @ServerResponseFilter
    public void headers(ResteasyReactiveContainerRequestContext request, RoutingContext rc) {
        if (rc == null) {
            return;
        }
        // asking for the headers of a response the resource did not build (a Response, a RestResponse) would build
        // one on every request
        LazyResponse response = ((ResteasyReactiveRequestContext) request.getServerRequestContext()).getResponse();
        if (response == null || !response.isCreated()) {
            return;
        }
        MultivaluedMap<String, Object> own = response.get().getHeaders();
        if (own.isEmpty()) {
            return;
        }
        MultiMap out = rc.response().headers();
        for (HeaderName name : http.headers().names()) {
            if (out.contains(name.optimized())) {
                own.remove(name.text());
            }
        }
    }

    /** A denial raised by the interceptor on a bean inside this request becomes the same 429. */
    @ServerExceptionMapper
    public Response denied(RateLimitExceededException e, RoutingContext rc) {
        if (rc != null) {
            // this denial's headers replace the filter's; the pk of each member names the quota of its checks
            http.headers().set(rc.response().headers(), e.decision(), rc.get(HttpLimits.DENIED_IDENTITIES));
        }
        return tooManyRequests(e.decision());
    }

    /**
     * 429, or 503 for a fail-closed denial when {@code quarkus.ratelimit.fail-closed-status=503}: the application's
     * {@link RateLimitResponder} response if it gives one, else a problem detail; {@code Retry-After} on either (the
     * rate-limit headers are added by {@link #headers}).
     */
    Response tooManyRequests(RateLimitDecision d) {
        int status = http.limiter().httpStatus(d);
        RateLimitResponder responder = http.responder();
        if (responder != null) {
            Response own;
            try {
                own = responder.denied(d, status);
            } catch (RuntimeException e) {
                LOG.errorf(e, "The application's RateLimitResponder %s failed; the denial is answered with the default "
                        + "body", responder.getClass().getName());
                own = null;
            }
            if (own != null) {
                return Response.fromResponse(own).header("Retry-After", null)
                        .header("Retry-After", d.retryAfterSeconds()).build();
            }
        }
        return Response.status(status)
                .header("Retry-After", d.retryAfterSeconds())
                .type(PROBLEM_JSON)
                .entity(RateLimitHeaders.problemBody(d, status))
                .build();
    }

    private static void logShadow(RateLimitDecision d) {
        if (LOG.isDebugEnabled()) {
            for (PolicyDecision p : d.policies()) {
                if (p.shadow() && !p.allowed()) {
                    LOG.debugf("Shadow policy '%s' would have denied this request (retry after %ds)", p.policy(),
                            p.retryAfterSeconds());
                }
            }
        }
    }
}
