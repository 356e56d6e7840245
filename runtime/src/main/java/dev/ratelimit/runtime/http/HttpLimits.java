package dev.ratelimit.runtime.http;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.ratelimit.Exemption;
import dev.ratelimit.PlanResolver;
import dev.ratelimit.RateLimitResponder;
import dev.ratelimit.Reservation;
import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.config.HttpConfig.HeaderFamily;
import dev.ratelimit.runtime.config.RateLimitRuntimeConfig;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.key.KeyResolution;
import dev.ratelimit.runtime.policy.MethodTargets;
import dev.ratelimit.runtime.policy.MethodTargets.Target;
import dev.ratelimit.runtime.policy.PathPattern;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.policy.RateLimitSpec;
import io.quarkus.arc.Arc;
import io.quarkus.arc.ManagedContext;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;

/**
 * What the filter and the interceptor share: the limits of a method ({@link MethodTargets}), the checks of a request
 * (its annotated and path policies, their keys and plans) and the renderer of decisions ({@link RateLimitHeaders}).
 */
@Singleton
public class HttpLimits {

    private static final Logger LOG = Logger.getLogger(HttpLimits.class);

    /**
     * Routing-context key of the decision the filter made, else of the first the interceptor made in the request: its
     * headers were set on the response when it was made, and the interceptor sets none of a later one (an interceptor
     * denial that becomes the 429 replaces them, see {@code RateLimitFilter#denied}).
     */
    public static final String DECISION = "dev.ratelimit.decision";
    /** Routing-context key of the resource method the filter already decided. */
    public static final String DECIDED_METHOD = "dev.ratelimit.decided";

    /**
     * Request attribute: the identities of the checks of the interceptor's latest denial in this request, when partition
     * keys are on; the {@code pk} of the headers when that denial becomes the response's 429.
     */
    public static final String DENIED_IDENTITIES = "dev.ratelimit.denied-identities";

    private final DefaultRateLimiter limiter;
    private final KeyResolution keys;
    private final RateLimitHeaders headers;
    private final MethodTargets methods;
    private final List<Policy> pathPolicies = new ArrayList<>();
    /** Null without a {@code PlanResolver} bean (the start fails when there are several). */
    private final PlanResolver planResolver;
    private final ResolverFailures resolverFailures;
    /** Null when no policy has exemptions and the application has no {@code Exemption} bean. */
    private final Exemptions exemptions;
    /** Whether a policy counts by outcome ({@code count}): without, no request is reserved for it. */
    private final boolean anyCountsByOutcome;

    /**
     * A request's checks, each on its plan, and whether a {@code concurrency} policy among them takes slots when they
     * are admitted.
     */
    public record RequestChecks(List<RateLimitCheck> checks, boolean takesSlots, boolean settles) {
        /** Whether no policy applies. */
        public boolean isEmpty() {
            return checks.isEmpty();
        }
    }

    /** The application's {@link RateLimitResponder}, or null. */
    private final RateLimitResponder responder;

    HttpLimits(DefaultRateLimiter limiter, KeyResolution keys, RateLimitRuntimeConfig config,
            @Any Instance<PlanResolver> planResolvers, @Any Instance<Exemption> exemptionBeans,
            Instance<RateLimitResponder> responders) {
        this.limiter = limiter;
        this.methods = new MethodTargets(limiter.policies()::get);
        this.responder = responders.isResolvable() ? responders.get() : null;
        this.keys = keys;
        this.planResolver = planResolvers.isResolvable() ? planResolvers.get() : null;
        this.resolverFailures = new ResolverFailures(limiter.metrics(), System::nanoTime);
        Exemptions e = new Exemptions(config.policies(), exemptionBeans.stream().toList(), keys, limiter.metrics(),
                resolverFailures);
        this.exemptions = e.any() ? e : null;
        this.anyCountsByOutcome = limiter.policies().all().stream().anyMatch(Policy::givesBack);
        List<HeaderFamily> families = config.http().headers();
        this.headers = new RateLimitHeaders(families.contains(HeaderFamily.IETF), families.contains(HeaderFamily.LEGACY),
                config.http().partitionKey());
        for (Policy p : limiter.policies().all()) {
            if (!p.paths().isEmpty()) {
                pathPolicies.add(p);
            }
        }
    }

    /** The routing context of the HTTP request being served, or null outside one (no active request context). */
    public static RoutingContext current(CurrentVertxRequest currentRequest) {
        ManagedContext requestContext = Arc.container().requestContext();
        if (!requestContext.isActive()) {
            return null;
        }
        try {
            return currentRequest.getCurrent();
        } catch (ContextNotActiveException e) {
            return null;
        }
    }

    /** The limits of the methods the filter and the interceptor meet. */
    public MethodTargets methods() {
        return methods;
    }

    /** How a decision is written on a response. */
    public RateLimitHeaders headers() {
        return headers;
    }

    /** The application's {@link RateLimitResponder}: what shapes a denied request's response; null for the default. */
    public RateLimitResponder responder() {
        return responder;
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
     * The checks for a request: the annotation specs of the method called ({@code target}), then every path policy
     * matching {@code path},
     * the {@link RoutedPath} of the request (unless already named by an annotation; none when
     * {@code path} is null), each on the plan the {@code PlanResolver} names for it. Returns {@code null} when a
     * required key is missing and the configuration denies such requests.
     */
    public RequestChecks checks(Target target, RoutingContext rc, String path, String method) {
        RateLimitSpec[] specs = target.specs();
        List<RateLimitCheck> checks = new ArrayList<>(specs.length + 1);
        boolean slots = false;
        boolean settles = false;
        for (int i = 0; i < specs.length; i++) {
            RateLimitSpec s = specs[i];
            Policy p = target.policies()[i];
            if (exempt(p, rc)) {
                continue;
            }
            String identity = identity(p, s.key() != null && !s.key().isEmpty() ? s.key() : p.key(), rc);
            if (identity == KeyResolution.DENY) {
                return null;
            }
            checks.add(new RateLimitCheck(p.name(), identity, s.cost(), plan(p, rc, checks)));
            slots |= p.algorithm().holdsLeases();
            settles |= s.settle();
        }
        if (path != null) {
            for (Policy p : pathPolicies) {
                if (appliesTo(p, path, method) && !named(specs, p.name()) && !exempt(p, rc)) {
                    String identity = identity(p, p.key(), rc);
                    if (identity == KeyResolution.DENY) {
                        return null;
                    }
                    checks.add(new RateLimitCheck(p.name(), identity, 1, plan(p, rc, checks)));
                    slots |= p.algorithm().holdsLeases();
                }
            }
        }
        if (anyCountsByOutcome && rc != null) {
            for (RateLimitCheck c : checks) {
                settles |= limiter.policies().get(c.policy()).givesBack();
            }
        }
        return new RequestChecks(checks, slots, settles);
    }

    /** Whether {@code p} does not count this request (see {@link Exemptions}). */
    private boolean exempt(Policy p, RoutingContext rc) {
        return exemptions != null && exemptions.exempt(p.name(), rc, true);
    }

    /** As {@link #exempt(Policy, RoutingContext)}, asked again for a request {@link #checks} already counted. */
    private boolean exemptUncounted(Policy p, RoutingContext rc) {
        return exemptions != null && exemptions.exempt(p.name(), rc, false);
    }

    /** Decides a request's checks, all-or-nothing, each on its plan. */
    public Uni<RateLimitDecision> decide(RequestChecks checks) {
        return limiter.check(checks.checks());
    }

    /**
     * Reserves a request's checks when some of its policies count by outcome or its method settles its actual cost
     * ({@link RequestChecks#settles}), to be settled by {@link #settle} once its status is known (and by the method,
     * through {@code RateLimitSettlement}). Checks naming one policy and key twice are merged into one
     * charge, which cannot be settled per check: they are decided plainly (and always counted).
     */
    public Uni<Reservation> reserve(RequestChecks checks) {
        try {
            return limiter.reserve(checks.checks());
        } catch (IllegalArgumentException e) {
            return limiter.check(checks.checks()).map(d -> new Reservation(d, checks.checks(), null));
        }
    }

    /**
     * Gives back the units of the policies of {@code reservation} that do not count a response of {@code status};
     * a failure only leaves them charged (it is logged at DEBUG).
     */
    public void settle(Reservation reservation, int status) {
        if (!reservation.allowed() || reservation.settled()) {
            return;
        }
        Map<String, Long> actual = new HashMap<>();
        for (RateLimitCheck c : reservation.checks()) {
            if (!limiter.policies().get(c.policy()).counted().counts(status)) {
                actual.put(c.policy(), 0L);
            }
        }
        if (actual.isEmpty()) {
            return;
        }
        reservation.settle(actual).subscribe().with(ignored -> {
        }, failure -> LOG.debugf(failure, "A settlement failed: its units stay charged"));
    }

    /**
     * The plan the application names for this request and policy, as {@link #plan(Policy, RoutingContext)}; asked once
     * per policy: a policy named twice takes the plan of its check in {@code earlier} (checks of one key merge into one
     * charge, which must be on one plan).
     */
    private String plan(Policy p, RoutingContext rc, List<RateLimitCheck> earlier) {
        if (!plansApply(p, rc)) {
            return null;
        }
        for (int i = 0; i < earlier.size(); i++) {
            RateLimitCheck c = earlier.get(i);
            if (c.policy().equals(p.name())) {
                return c.plan();
            }
        }
        return askPlan(p, rc);
    }

    /**
     * The plan the application names for this request and policy; null outside HTTP, for a policy without plans, or
     * when the resolver throws (the base plan, see {@link ResolverFailures}).
     */
    private String plan(Policy p, RoutingContext rc) {
        return plansApply(p, rc) ? askPlan(p, rc) : null;
    }

    private boolean plansApply(Policy p, RoutingContext rc) {
        return planResolver != null && rc != null && limiter.policies().hasPlans(p.name());
    }

    private String askPlan(Policy p, RoutingContext rc) {
        try {
            return planResolver.plan(p.name(), rc.request());
        } catch (RuntimeException e) {
            resolverFailures.failed(p.name(), "plan", e, "the request is decided on the policy's base plan");
            return null;
        }
    }

    /** The identity of {@code source} for policy {@code p}; the client address when a key resolver throws. */
    private String identity(Policy p, String source, RoutingContext rc) {
        try {
            return keys.resolve(source, rc);
        } catch (RuntimeException e) {
            resolverFailures.failed(p.name(), "key", e, "the request is counted against the client address");
            return keys.ip(rc);
        }
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

    /**
     * A decision for requests denied because their key is missing ({@code missing-header=deny}), on their plans: the
     * annotation's policies, then the path policies that apply to {@code path} and {@code method} ({@code path} null:
     * none), as {@link #checks} would have decided them.
     */
    public RateLimitDecision missingKeyDecision(RateLimitSpec[] specs, RoutingContext rc, String path, String method) {
        List<PolicyDecision> list = applying(specs, rc, path, method, true);
        if (list.isEmpty()) {
            // an Exemption bean that answered otherwise a moment ago: every policy that applies
            list = applying(specs, rc, path, method, false);
        }
        return new RateLimitDecision(false, list, RateLimitDecision.Source.LOCAL);
    }

    /** A denial by each policy that applies to the request ({@code skipExempt}: those not exempt from it). */
    private List<PolicyDecision> applying(RateLimitSpec[] specs, RoutingContext rc, String path, String method,
            boolean skipExempt) {
        List<PolicyDecision> list = new ArrayList<>();
        for (RateLimitSpec s : specs) {
            Policy p = limiter.policies().get(s.policy());
            if (!skipExempt || !exemptUncounted(p, rc)) {
                list.add(denied(p, rc));
            }
        }
        if (path != null) {
            for (Policy p : pathPolicies) {
                if (appliesTo(p, path, method) && !named(specs, p.name()) && (!skipExempt || !exemptUncounted(p, rc))) {
                    list.add(denied(p, rc));
                }
            }
        }
        return list;
    }

    /** The identities of a request's checks, in order (the {@code pk} of each policy's member). */
    public static String[] identities(RequestChecks checks) {
        return checks.checks().stream().map(RateLimitCheck::key).toArray(String[]::new);
    }

    private PolicyDecision denied(Policy policy, RoutingContext rc) {
        Policy p = limiter.policies().get(policy.name(), plan(policy, rc));
        return new PolicyDecision(p.name(), p.limit(), p.window(), false, 0, p.window(), p.window(), false);
    }
}
