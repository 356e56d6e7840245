package dev.ratelimit.runtime;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.inject.Singleton;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.policy.PathPattern;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.policy.PolicyValidator;
import dev.ratelimit.runtime.policy.RateLimitSpec;
import dev.ratelimit.runtime.policy.RateLimitedMethods;

/**
 * What the filter and the interceptor share: the checks of a request (its spec'd and path policies,
 * their keys), start-up checks of what the build could not see, and the renderer of decisions
 * ({@link RateLimitHeaders}).
 */
@Singleton
public class HttpLimits {

    /** Routing-context key of the decision of the current request (headers are written from it). */
    public static final String DECISION = "dev.ratelimit.decision";
    /** Routing-context key of the resource method the filter already decided. */
    public static final String DECIDED_METHOD = "dev.ratelimit.decided";

    private final DefaultRateLimiter limiter;
    private final KeyResolution keys;
    private final RateLimitHeaders headers;
    private final List<Policy> pathPolicies = new ArrayList<>();
    /**
     * Per method the interceptor met: its key and specs, resolved once for the application (an
     * interceptor instance lives as long as its bean instance, one request for a request-scoped bean).
     */
    private final Map<Method, RateLimitInterceptor.Target> interceptedMethods = new ConcurrentHashMap<>();

    HttpLimits(DefaultRateLimiter limiter, KeyResolution keys, RateLimitRuntimeConfig config) {
        this.limiter = limiter;
        this.keys = keys;
        List<String> families = config.http().headers();
        for (String f : families) {
            if (!List.of("ietf", "legacy", "none").contains(f)) {
                throw new io.quarkus.runtime.configuration.ConfigurationException("quarkus.ratelimit.http.headers has '"
                        + f + "': use ietf, legacy, both (ietf,legacy) or none");
            }
        }
        this.headers = new RateLimitHeaders(families.contains("ietf"), families.contains("legacy"));
        for (Policy p : limiter.policies().all()) {
            if (!p.paths().isEmpty()) {
                pathPolicies.add(p);
            }
        }
        List<String[]> sources = new ArrayList<>();
        for (Policy p : limiter.policies().all()) {
            sources.add(new String[] { p.key(), PolicyValidator.property(p.name(), "key") });
        }
        List<String> costErrors = new ArrayList<>();
        RateLimitedMethods.all().forEach((method, specs) -> {
            for (RateLimitSpec s : specs) {
                if (s.key() != null && !s.key().isEmpty()) {
                    sources.add(new String[] { s.key(), "@RateLimit(key) on " + method });
                }
                checkCost(method, s, costErrors);
            }
        });
        if (!costErrors.isEmpty()) {
            throw new io.quarkus.runtime.configuration.ConfigurationException("Invalid rate-limit costs:\n  - "
                    + String.join("\n  - ", costErrors));
        }
        keys.validate(sources);
    }

    /** The build checked costs against the values it saw; values set at start-up may be lower. */
    private void checkCost(String method, RateLimitSpec s, List<String> errors) {
        if (!limiter.policies().contains(s.policy())) {
            errors.add("@RateLimit(\"" + s.policy() + "\") on " + method + " names a policy that is not configured at "
                    + "start-up: define " + PolicyValidator.property(s.policy(), "limit") + " and "
                    + PolicyValidator.property(s.policy(), "window"));
            return;
        }
        Policy p = limiter.policies().get(s.policy());
        if (s.cost() > p.capacity()) {
            errors.add("@RateLimit(value=\"" + s.policy() + "\", cost=" + s.cost() + ") on " + method
                    + " can never be admitted: the policy's capacity is " + p.capacity() + "; raise "
                    + PolicyValidator.property(p.name(), p.algorithm().usesBurst() && p.burst() != p.limit() ? "burst" : "limit")
                    + " or lower the cost");
        }
    }

    /** The key and specs of a method the interceptor met, resolved on its first call. */
    RateLimitInterceptor.Target interceptedMethod(Method method) {
        return interceptedMethods.computeIfAbsent(method, RateLimitInterceptor.Target::of);
    }

    /** How a decision is written on a response. */
    public RateLimitHeaders headers() {
        return headers;
    }

    /** The limiter. */
    public DefaultRateLimiter limiter() {
        return limiter;
    }

    /** Whether any policy applies by path. */
    public boolean hasPathPolicies() {
        return !pathPolicies.isEmpty();
    }

    /**
     * The checks for a request: the annotation specs, then every path policy matching {@code path},
     * the {@link RoutedPath} of the request (unless already named by an annotation; none when
     * {@code path} is null). Returns {@code null} when a required key is missing and the
     * configuration denies such requests.
     */
    public List<RateLimitCheck> checks(RateLimitSpec[] specs, io.vertx.ext.web.RoutingContext rc, String path,
            String method) {
        List<RateLimitCheck> checks = new ArrayList<>(specs.length + 1);
        for (RateLimitSpec s : specs) {
            Policy p = limiter.policies().get(s.policy());
            String identity = keys.resolve(s.key() != null && !s.key().isEmpty() ? s.key() : p.key(), rc);
            if (identity == KeyResolution.DENY) {
                return null;
            }
            checks.add(new RateLimitCheck(p.name(), identity, s.cost()));
        }
        if (path != null) {
            for (Policy p : pathPolicies) {
                if (appliesTo(p, path, method) && !named(specs, p.name())) {
                    String identity = keys.resolve(p.key(), rc);
                    if (identity == KeyResolution.DENY) {
                        return null;
                    }
                    checks.add(new RateLimitCheck(p.name(), identity, 1));
                }
            }
        }
        return checks;
    }

    private static boolean appliesTo(Policy p, String path, String method) {
        if (!p.methods().isEmpty()) {
            String m = method.toUpperCase(Locale.ROOT);
            // Quarkus REST answers a HEAD with the GET method (when no @HEAD method exists): it counts as a GET
            if (!p.methods().contains(m) && !("HEAD".equals(m) && p.methods().contains("GET"))) {
                return false;
            }
        }
        for (String pattern : p.paths()) {
            if (PathPattern.matches(pattern, path)) {
                return true;
            }
        }
        return false;
    }

    private static boolean named(RateLimitSpec[] specs, String policy) {
        for (RateLimitSpec s : specs) {
            if (s.policy().equals(policy)) {
                return true;
            }
        }
        return false;
    }

    /** A decision for requests denied because their key is missing ({@code missing-header=deny}). */
    public RateLimitDecision missingKeyDecision(RateLimitSpec[] specs) {
        List<PolicyDecision> list = new ArrayList<>();
        for (RateLimitSpec s : specs) {
            Policy p = limiter.policies().get(s.policy());
            list.add(new PolicyDecision(p.name(), p.limit(), p.window(), false, 0, p.window(), p.window(), false));
        }
        if (list.isEmpty()) {
            for (Policy p : pathPolicies) {
                list.add(new PolicyDecision(p.name(), p.limit(), p.window(), false, 0, p.window(), p.window(), false));
            }
        }
        return new RateLimitDecision(false, list, RateLimitDecision.Source.LOCAL);
    }
}
