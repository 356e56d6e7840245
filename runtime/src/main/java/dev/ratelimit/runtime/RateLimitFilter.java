package dev.ratelimit.runtime;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;
import org.jboss.resteasy.reactive.server.SimpleResourceInfo;
import org.jboss.resteasy.reactive.server.spi.ServerRequestContext;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.runtime.policy.RateLimitSpec;
import dev.ratelimit.runtime.policy.RateLimitedMethods;
import io.smallrye.mutiny.Uni;
import io.vertx.core.MultiMap;
import io.vertx.ext.web.RoutingContext;

/**
 * Quarkus REST integration: decides annotated resource methods and path policies after matching
 * and before the body is read or the method runs, answers denials with 429, and writes the
 * rate-limit headers on every limited response. Registered only when the application uses
 * Quarkus REST.
 */
public class RateLimitFilter {

    private static final Logger LOG = Logger.getLogger(RateLimitFilter.class);
    private static final Uni<Response> PROCEED = Uni.createFrom().nullItem();
    private static final String PROBLEM_JSON = "application/problem+json";

    private final HttpLimits http;
    /**
     * Per resource class and method name, the overloads met so far: one entry per resource method, whatever the
     * number of requests. Not keyed by the {@link SimpleResourceInfo} itself: Quarkus REST hands each request a new
     * one, without {@code equals}.
     */
    private final Map<Class<?>, Map<String, Target[]>> targets = new ConcurrentHashMap<>();

    RateLimitFilter(HttpLimits http) {
        this.http = http;
    }

    private record Target(Class<?>[] parameterTypes, String methodKey, RateLimitSpec[] specs) {
    }

    /** The key and specs of the request's resource method, looked up without allocating once met. */
    private Target target(SimpleResourceInfo info) {
        Map<String, Target[]> byName = targets.computeIfAbsent(info.getResourceClass(), c -> new ConcurrentHashMap<>());
        Class<?>[] parameterTypes = info.parameterTypes();
        Target known = overload(byName.get(info.getMethodName()), parameterTypes);
        if (known != null) {
            return known;
        }
        Target met = declared(info.getResourceClass(), info.getMethodName(), parameterTypes.clone());
        byName.merge(info.getMethodName(), new Target[] { met }, (overloads, added) -> {
            if (overload(overloads, met.parameterTypes) != null) {
                return overloads; // another thread met it first
            }
            Target[] all = Arrays.copyOf(overloads, overloads.length + 1);
            all[overloads.length] = met;
            return all;
        });
        return met;
    }

    /** The overload with these parameter types, or null. */
    private static Target overload(Target[] overloads, Class<?>[] parameterTypes) {
        if (overloads != null) {
            for (Target t : overloads) {
                if (Arrays.equals(t.parameterTypes, parameterTypes)) {
                    return t;
                }
            }
        }
        return null;
    }

    /**
     * The limits of a resource method as the build recorded them: under the class that declares the annotated
     * method, which may be a superclass of the resource class or an interface it implements (a JAX-RS interface).
     * Walks the hierarchy by name only, so nothing needs reflection in a native executable.
     */
    private static Target declared(Class<?> resourceClass, String name, Class<?>[] parameterTypes) {
        for (Class<?> c = resourceClass; c != null && c != Object.class; c = c.getSuperclass()) {
            Target t = declaredIn(c, name, parameterTypes);
            if (t != null) {
                return t;
            }
        }
        // not limited: the key the interceptor compares, under the resource class
        return new Target(parameterTypes, RateLimitedMethods.methodKey(resourceClass, name, parameterTypes),
                new RateLimitSpec[0]);
    }

    private static Target declaredIn(Class<?> type, String name, Class<?>[] parameterTypes) {
        String key = RateLimitedMethods.methodKey(type, name, parameterTypes);
        RateLimitSpec[] specs = RateLimitedMethods.get(key);
        if (specs.length > 0) {
            return new Target(parameterTypes, key, specs);
        }
        for (Class<?> i : type.getInterfaces()) {
            Target t = declaredIn(i, name, parameterTypes);
            if (t != null) {
                return t;
            }
        }
        return null;
    }

    /** How many resource methods this filter has met (for tests: it must not grow with requests). */
    int knownMethods() {
        int n = 0;
        for (Map<String, Target[]> byName : targets.values()) {
            for (Target[] overloads : byName.values()) {
                n += overloads.length;
            }
        }
        return n;
    }

    @ServerRequestFilter(priority = Priorities.AUTHORIZATION + 100, nonBlocking = true)
    public Uni<Response> decide(SimpleResourceInfo info, ServerRequestContext request, RoutingContext rc) {
        Target target = target(info);
        if (target.specs.length == 0 && !http.hasPathPolicies()) {
            return PROCEED;
        }
        // path policies see the path routing matched, not the spelling on the request line
        String path = http.hasPathPolicies() ? RoutedPath.of(request) : null;
        List<RateLimitCheck> checks = http.checks(target.specs, rc, path, rc.request().method().name());
        if (checks == null) {
            RateLimitDecision denied = http.missingKeyDecision(target.specs);
            rc.put(HttpLimits.DECISION, denied);
            return Uni.createFrom().item(tooManyRequests(denied));
        }
        if (checks.isEmpty()) {
            return PROCEED;
        }
        // the interceptor must not decide this invocation again
        rc.put(HttpLimits.DECIDED_METHOD, target.methodKey);
        return http.limiter().check(checks).map(d -> {
            rc.put(HttpLimits.DECISION, d);
            if (d.allowed()) {
                logShadow(d);
                return null;
            }
            return tooManyRequests(d);
        });
    }

    @ServerResponseFilter
    public void headers(ContainerResponseContext response, RoutingContext rc) {
        if (rc == null) {
            return;
        }
        RateLimitDecision d = rc.get(HttpLimits.DECISION);
        if (d == null) {
            return;
        }
        // straight onto the Vert.x response with pre-hashed names: Quarkus REST would copy each header of
        // its own map there, hashing the name character by character on every response
        MultiMap out = rc.response().headers();
        MultivaluedMap<String, Object> own = response.getHeaders();
        http.headers().write(d, (name, value) -> {
            if (!own.isEmpty()) {
                own.remove(name.text()); // the limiter's value replaces one the resource set
            }
            out.set(name.optimized(), value);
        });
    }

    /** A denial raised by the interceptor on a bean inside this request becomes the same 429. */
    @ServerExceptionMapper
    public Response denied(RateLimitExceededException e, RoutingContext rc) {
        if (rc != null) {
            rc.put(HttpLimits.DECISION, e.decision());
        }
        return tooManyRequests(e.decision());
    }

    /** 429, or 503 for a fail-closed denial when {@code quarkus.ratelimit.fail-closed-status=503}. */
    Response tooManyRequests(RateLimitDecision d) {
        int status = http.limiter().httpStatus(d);
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
