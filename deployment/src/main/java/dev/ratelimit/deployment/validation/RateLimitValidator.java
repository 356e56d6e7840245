package dev.ratelimit.deployment.validation;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;

import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.ClassInfo;
import org.jboss.jandex.DotName;
import org.jboss.jandex.IndexView;
import org.jboss.jandex.MethodInfo;

import dev.ratelimit.deployment.RateLimitedMethodBuildItem;
import dev.ratelimit.runtime.key.KeySource;
import dev.ratelimit.runtime.policy.PolicyValidator;

/**
 * The build-time rules for {@code @RateLimit} usages and policies. Each problem is one exception
 * whose message names the class, the method, the policy and the property or annotation member to fix.
 */
public final class RateLimitValidator {

    private RateLimitValidator() {
    }

    /**
     * Asynchronous types the interceptor does not handle: deciding their calls would block the caller (often an event
     * loop) before the work they stand for even starts. Uni, Multi and CompletionStage are decided without blocking,
     * and so are Kotlin suspend functions (whatever they return: compiled, they return Object).
     */
    private static final Set<String> UNDECIDABLE_RETURNS = Set.of(
            "java.util.concurrent.Future",
            "java.util.concurrent.ScheduledFuture",
            "java.util.concurrent.RunnableFuture",
            "java.util.concurrent.FutureTask",
            "java.util.concurrent.ForkJoinTask",
            "java.util.concurrent.Flow$Publisher",
            "java.util.concurrent.SubmissionPublisher",
            "org.reactivestreams.Publisher",
            "io.vertx.core.Future",
            "kotlinx.coroutines.flow.Flow",
            "kotlinx.coroutines.flow.StateFlow",
            "kotlinx.coroutines.flow.SharedFlow",
            "kotlinx.coroutines.channels.ReceiveChannel",
            "kotlinx.coroutines.Deferred",
            "io.reactivex.rxjava3.core.Flowable",
            "io.reactivex.rxjava3.core.Observable",
            "io.reactivex.rxjava3.core.Single",
            "io.reactivex.rxjava3.core.Maybe",
            "io.reactivex.rxjava3.core.Completable",
            "io.reactivex.Flowable",
            "io.reactivex.Observable",
            "io.reactivex.Single",
            "io.reactivex.Maybe",
            "io.reactivex.Completable",
            "reactor.core.publisher.Flux",
            "reactor.core.publisher.Mono",
            "reactor.core.publisher.ParallelFlux");

    /** JAX-RS annotations that make a method a resource method (or locator): the filter decides those. */
    private static final Set<String> JAX_RS_METHOD = Set.of("jakarta.ws.rs.GET", "jakarta.ws.rs.POST",
            "jakarta.ws.rs.PUT", "jakarta.ws.rs.DELETE", "jakarta.ws.rs.PATCH", "jakarta.ws.rs.HEAD",
            "jakarta.ws.rs.OPTIONS", "jakarta.ws.rs.Path");

    private static final DotName HTTP_METHOD = DotName.createSimple("jakarta.ws.rs.HttpMethod");

    /**
     * What the interceptor could only decide by blocking, named for the message, or null. A JAX-RS resource method is
     * decided by the filter, without blocking, whatever it returns.
     */
    private static String undecidableReturn(MethodInfo m, IndexView index) {
        if (isResourceMethod(m, m.declaringClass(), index, new HashSet<>())) {
            return null;
        }
        String type = m.returnType().name().toString();
        return UNDECIDABLE_RETURNS.contains(type) ? "a method returning " + type.replace('$', '.') : null;
    }

    /**
     * Whether {@code m}, or the method it implements or overrides in {@code c}'s superclasses and interfaces, carries a
     * JAX-RS method designator or {@code @Path} (JAX-RS inherits them when the implementing method declares none).
     */
    private static boolean isResourceMethod(MethodInfo m, ClassInfo c, IndexView index, Set<DotName> seen) {
        if (c == null || !seen.add(c.name())) {
            return false;
        }
        MethodInfo same = c.method(m.name(), m.parameterTypes());
        if (same != null) {
            for (AnnotationInstance a : same.declaredAnnotations()) {
                if (JAX_RS_METHOD.contains(a.name().toString())) {
                    return true;
                }
                ClassInfo annotation = index.getClassByName(a.name());
                if (annotation != null && annotation.hasDeclaredAnnotation(HTTP_METHOD)) {
                    return true; // a custom verb
                }
            }
        }
        if (c.superName() != null && isResourceMethod(m, index.getClassByName(c.superName()), index, seen)) {
            return true;
        }
        for (DotName i : c.interfaceNames()) {
            if (isResourceMethod(m, index.getClassByName(i), index, seen)) {
                return true;
            }
        }
        return false;
    }

    /** Types a bean method's work goes on in after it returned. */
    private static final Set<String> LATER_RETURNS = Set.of("io.smallrye.mutiny.Uni", "io.smallrye.mutiny.Multi",
            "java.util.concurrent.CompletionStage", "java.util.concurrent.CompletableFuture");

    /**
     * A bean method (not a JAX-RS resource method, whose reservation the filter keeps with the request) whose work
     * goes on after it returns, named for the message, or null.
     */
    private static String endsAfterReturning(RateLimitedMethodBuildItem item, IndexView index) {
        MethodInfo m = item.method();
        if (isResourceMethod(m, m.declaringClass(), index, new HashSet<>())) {
            return null;
        }
        if (item.suspendFunction()) {
            return "a Kotlin suspend function";
        }
        String type = m.returnType().name().toString();
        return LATER_RETURNS.contains(type) ? "a bean method returning " + type : null;
    }

    private static final DotName NON_BLOCKING = DotName.createSimple("io.smallrye.common.annotation.NonBlocking");
    private static final DotName CONSUME_EVENT = DotName.createSimple("io.quarkus.vertx.ConsumeEvent");

    /**
     * A plain bean method that runs on an event loop (marked {@code @NonBlocking}, or a {@code @ConsumeEvent} consumer
     * that is not blocking), named for the message, or null. A JAX-RS resource method is decided by the filter, which
     * waits without blocking whatever the method returns.
     */
    private static String onEventLoop(RateLimitedMethodBuildItem item, IndexView index) {
        MethodInfo m = item.method();
        String type = m.returnType().name().toString();
        if (item.suspendFunction() || LATER_RETURNS.contains(type) || isResourceMethod(m, m.declaringClass(), index,
                new HashSet<>())) {
            return null;
        }
        if (m.hasDeclaredAnnotation(NON_BLOCKING) || m.declaringClass().hasDeclaredAnnotation(NON_BLOCKING)) {
            return "a @NonBlocking method returning " + type;
        }
        var consume = m.declaredAnnotation(CONSUME_EVENT);
        if (consume != null && (consume.value("blocking") == null || !consume.value("blocking").asBoolean())) {
            return "a @ConsumeEvent method that is not blocking";
        }
        return null;
    }

    public static List<Throwable> validate(List<RateLimitedMethodBuildItem> methods, BuildTimePolicies policies,
            IndexView index) {
        List<Throwable> errors = new ArrayList<>();
        policies.validate(errors);
        for (RateLimitedMethodBuildItem item : methods) {
            MethodInfo m = item.method();
            String where = "[class=" + m.declaringClass().name() + ", method=" + m.name() + ", policy="
                    + String.join(",", item.specs().stream().map(RateLimitedMethodBuildItem.Spec::policy).toList()) + "]";
            if (Modifier.isPrivate(m.flags())) {
                errors.add(new RateLimitValidationException.PrivateMethodException(
                        "@RateLimit cannot apply to a private method: make it package-private, protected or public "
                                + where));
            }
            if (Modifier.isStatic(m.flags())) {
                errors.add(new RateLimitValidationException.StaticMethodException(
                        "@RateLimit cannot apply to a static method: interceptors only see instance methods of beans "
                                + where));
            }
            if (item.specs().stream().anyMatch(RateLimitedMethodBuildItem.Spec::settle)) {
                String ends = endsAfterReturning(item, index);
                if (ends != null) {
                    errors.add(new RateLimitValidationException.AsynchronousReturnTypeException("@RateLimit(settle = "
                            + "true) cannot settle " + ends + ": its work ends after it returns, and the call's "
                            + "reservation with it; reserve with RateLimiter.reserve and settle when the work ends, or "
                            + "make it a JAX-RS resource method " + where));
                }
            }
            String undecidable = undecidableReturn(m, index);
            if (undecidable != null) {
                errors.add(new RateLimitValidationException.AsynchronousReturnTypeException("@RateLimit cannot decide "
                        + undecidable + " without blocking the thread that calls it: return Uni, Multi or "
                        + "CompletionStage, make it a Kotlin suspend function, or return a plain type and call it "
                        + "from a worker thread " + where));
            }
            for (RateLimitedMethodBuildItem.Spec s : item.specs()) {
                String at = "[class=" + m.declaringClass().name() + ", method=" + m.name() + ", policy=" + s.policy() + "]";
                if (!policies.names().contains(s.policy())) {
                    errors.add(new RateLimitValidationException.UnknownPolicyException("@RateLimit(\"" + s.policy()
                            + "\") names an unknown policy: define " + PolicyValidator.property(s.policy(), "limit")
                            + " and " + PolicyValidator.property(s.policy(), "window")
                            + (policies.names().isEmpty() ? "" : " or use one of " + policies.names()) + " " + at));
                    continue;
                }
                OptionalInt capacity = policies.capacity(s.policy());
                if (s.cost() < 1) {
                    errors.add(new RateLimitValidationException.InvalidCostException("@RateLimit cost " + s.cost()
                            + " is not positive: set cost to 1 or more " + at));
                } else if (capacity.isPresent() && capacity.getAsInt() > 0 && s.cost() > capacity.getAsInt()) {
                    errors.add(new RateLimitValidationException.InvalidCostException("@RateLimit cost " + s.cost()
                            + " exceeds what policy '" + s.policy() + "' can ever admit (" + capacity.getAsInt()
                            + "): lower the cost or raise " + PolicyValidator.property(s.policy(),
                                    policies.capacityAttribute(s.policy()))
                            + " " + at));
                }
                if (s.cost() >= 1) {
                    // a plan with a smaller capacity would refuse every request of its clients (a capacity under 1 is
                    // an invalid value, reported as such)
                    policies.planCapacities(s.policy()).forEach((plan, c) -> {
                        if (c.units() > 0 && s.cost() > c.units()) {
                            errors.add(new RateLimitValidationException.InvalidCostException("@RateLimit cost "
                                    + s.cost() + " exceeds what policy '" + s.policy() + "' can ever admit on plan '"
                                    + plan + "' (" + c.units() + "): lower the cost or raise " + c.property() + " "
                                    + at.substring(0, at.length() - 1) + ", plan=" + plan + "]"));
                        }
                    });
                }
                String loop = onEventLoop(item, index);
                if (loop != null && policies.policy(s.policy()).maxWait().isPresent()) {
                    errors.add(new RateLimitValidationException.AsynchronousReturnTypeException("@RateLimit on "
                            + loop + " cannot wait for admission (policy '" + s.policy() + "' has max-wait): it would "
                            + "block the event loop; return Uni or CompletionStage, let it run on a worker thread, or "
                            + "remove " + PolicyValidator.property(s.policy(), "max-wait") + " " + at));
                }
                if (!s.key().isEmpty()) {
                    String problem = KeySource.validate(s.key());
                    if (problem != null) {
                        errors.add(new RateLimitValidationException.InvalidKeyException("@RateLimit key '" + s.key()
                                + "': " + problem + " " + at));
                    }
                }
            }
        }
        return errors;
    }
}
