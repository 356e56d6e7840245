package dev.ratelimit.runtime.interceptor;

import java.lang.reflect.Method;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Instance;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.Reservation;
import dev.ratelimit.runtime.http.HttpLimits;
import dev.ratelimit.runtime.http.HttpLimits.RequestChecks;
import dev.ratelimit.runtime.http.Settlements;
import dev.ratelimit.runtime.policy.MethodTargets.Target;
import dev.ratelimit.runtime.policy.RateLimitSpec;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;

/**
 * Limits calls to {@code @RateLimit} methods of any CDI bean. Honours the return type: a
 * {@code Uni} or {@code CompletionStage} is decided without blocking and fails with
 * {@link RateLimitExceededException}; a {@code Multi} is decided at each subscription, without blocking, and fails
 * the same way; a Kotlin {@code suspend} function suspends until the decision comes and throws it at its call site
 * (see {@link KotlinSuspendFunctions}); a plain method is decided blocking (never on an event-loop thread) and throws
 * it. A JAX-RS resource method already decided by the filter in this request proceeds without a second decision.
 */
@RateLimit("")
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class RateLimitInterceptor {

    private final HttpLimits http;
    private final CurrentVertxRequest currentRequest;
    /** Null unless a limited method is a Kotlin suspend function (see {@link SuspendFunctions}). */
    private final SuspendFunctions suspendFunctions;

    RateLimitInterceptor(HttpLimits http, CurrentVertxRequest currentRequest,
            Instance<SuspendFunctions> suspendFunctions) {
        this.http = http;
        this.currentRequest = currentRequest;
        this.suspendFunctions = suspendFunctions.isResolvable() ? suspendFunctions.get() : null;
    }

    @AroundInvoke
    Object limit(InvocationContext ctx) throws Exception {
        Method method = ctx.getMethod();
        Target target = http.methods().intercepted(method);
        String key = target.methodKey();
        RateLimitSpec[] specs = target.specs();
        if (specs.length == 0) {
            return ctx.proceed();
        }
        RoutingContext rc = currentRoutingContext();
        if (rc != null && key.equals(rc.get(HttpLimits.DECIDED_METHOD))) {
            rc.remove(HttpLimits.DECIDED_METHOD);
            return ctx.proceed();
        }
        RequestChecks checks = http.checks(target, rc, null, null);
        if (checks != null && checks.isEmpty()) {
            return ctx.proceed(); // exempt from every policy
        }
        Class<?> type = method.getReturnType();
        boolean settles = target.settles();
        if (settles && (target.suspendFunction() || Uni.class.isAssignableFrom(type)
                || CompletionStage.class.isAssignableFrom(type) || Multi.class.isAssignableFrom(type))) {
            throw new IllegalStateException("@RateLimit(settle = true) on " + method.getDeclaringClass().getName() + "#"
                    + method.getName() + ": a method that returns " + type.getSimpleName() + " ends after it returns; "
                    + "reserve with RateLimiter.reserve and settle when its work ends");
        }
        if (target.suspendFunction()) {
            if (suspendFunctions == null) { // the build registers it whenever a limited method suspends
                throw new IllegalStateException("@RateLimit on " + method.getDeclaringClass().getName() + "#"
                        + method.getName() + ": a Kotlin suspend function the build did not see");
            }
            // the coroutine goes on on its own dispatcher, so the decision is not brought back to a Vert.x context
            // here (KotlinSuspendFunctions does, for a coroutine without a dispatcher)
            return suspendFunctions.limit(ctx, decide(checks, specs, rc));
        }
        if (Uni.class.isAssignableFrom(type)) {
            // slots of concurrency policies are held until the Uni terminates: item, failure or cancellation
            return onCallerContext(decide(checks, specs, rc)).chain(d -> d.allowed()
                    ? d.holdsSlots() ? proceedUni(ctx).onTermination().invoke(d::release) : proceedUni(ctx)
                    : Uni.createFrom().failure(new RateLimitExceededException(d)));
        }
        if (CompletionStage.class.isAssignableFrom(type)) {
            return onCallerContext(decide(checks, specs, rc)).subscribeAsCompletionStage().thenCompose(d -> {
                if (!d.allowed()) {
                    return java.util.concurrent.CompletableFuture.failedFuture(new RateLimitExceededException(d));
                }
                CompletionStage<Object> stage;
                try {
                    stage = castStage(ctx.proceed());
                } catch (Exception e) {
                    d.release();
                    return java.util.concurrent.CompletableFuture.failedFuture(e);
                }
                // slots of concurrency policies are held until the stage completes
                return d.holdsSlots() ? stage.whenComplete((r, e) -> d.release()) : stage;
            });
        }
        if (Multi.class.isAssignableFrom(type)) {
            // decided at each subscription, without blocking; slots of concurrency policies are held until the
            // stream terminates (completion, failure or cancellation)
            return Multi.createFrom().deferred(() -> onCallerContext(decide(checks, specs, rc)).onItem()
                    .transformToMulti(d -> {
                        if (!d.allowed()) {
                            return Multi.createFrom().failure(new RateLimitExceededException(d));
                        }
                        Multi<Object> stream = proceedMulti(ctx);
                        return d.holdsSlots() ? stream.onTermination().invoke(d::release) : stream;
                    }));
        }
        if (Context.isOnEventLoopThread()) {
            throw new IllegalStateException("@RateLimit on " + method.getDeclaringClass().getName() + "#" + method.getName()
                    + " cannot decide on an event-loop thread without blocking it: return Uni or CompletionStage "
                    + "(or make it a Kotlin suspend function), or call it from a worker thread (e.g. @Blocking)");
        }
        AtomicReference<Reservation> reserved = settles && checks != null ? new AtomicReference<>() : null;
        RateLimitDecision d = (reserved == null ? decide(checks, specs, rc)
                : decide(checks, specs, rc, http.reserve(checks).invoke(reserved::set).map(Reservation::decision)))
                .await().indefinitely();
        if (!d.allowed()) {
            throw new RateLimitExceededException(d);
        }
        // the method settles its actual cost through RateLimitSettlement, on this thread, while it runs
        Reservation before = reserved == null ? null : Settlements.enter(reserved.get());
        try {
            if (!d.holdsSlots()) {
                return ctx.proceed();
            }
            // slots of concurrency policies are held until the method returns or throws
            Object result = proceedFreeingOnFailure(ctx, d);
            d.release();
            return result;
        } finally {
            if (reserved != null) {
                Settlements.exit(before);
            }
        }
    }


    private Uni<RateLimitDecision> decide(RequestChecks checks, RateLimitSpec[] specs, RoutingContext rc) {
        return decide(checks, specs, rc, checks == null ? null : http.decide(checks));
    }

    /** As above, the checks decided by {@code decided} (null when a key is missing). */
    private Uni<RateLimitDecision> decide(RequestChecks checks, RateLimitSpec[] specs, RoutingContext rc,
            Uni<RateLimitDecision> decided) {
        Uni<RateLimitDecision> d = checks == null
                ? Uni.createFrom().item(http.missingKeyDecision(specs, rc, null, null))
                : decided;
        if (rc == null) {
            return d;
        }
        String[] identities = checks != null && http.headers().partitionKeys() ? HttpLimits.identities(checks) : null;
        // inside an HTTP request the response carries this decision's headers, unless the filter decided one
        return d.invoke(decision -> {
            if (rc.get(HttpLimits.DECISION) == null) {
                rc.put(HttpLimits.DECISION, decision);
                http.headers().set(rc.response().headers(), decision, identities);
            }
            if (!decision.allowed() && identities != null) {
                // should this denial become the 429, its members name these quotas (see RateLimitFilter#denied)
                rc.put(HttpLimits.DENIED_IDENTITIES, identities);
            }
        });
    }

    /**
     * The decision, delivered on the caller's Vert.x context. A decision may complete elsewhere: on the timeout's
     * thread, or on the event loop of a connection several event loops share. The intercepted method must go on where
     * it was called (Hibernate Reactive, the request context and context-local data are bound to that context), so
     * the decision hops back to it when it completes anywhere else; on the caller's context it goes on at once.
     */
    static Uni<RateLimitDecision> onCallerContext(Uni<RateLimitDecision> decision) {
        Context caller = Vertx.currentContext();
        if (caller == null) {
            return decision; // not called on a Vert.x context: nothing to go back to
        }
        return Uni.createFrom().emitter(emitter -> {
            AtomicBoolean ended = new AtomicBoolean();
            emitter.onTermination(() -> ended.set(true));
            decision.subscribe().with(
                item -> {
                    if (Vertx.currentContext() == caller) {
                        deliver(emitter, ended, item);
                    } else {
                        caller.runOnContext(v -> deliver(emitter, ended, item));
                    }
                },
                failure -> {
                    if (Vertx.currentContext() == caller) {
                        emitter.fail(failure);
                    } else {
                        caller.runOnContext(v -> emitter.fail(failure));
                    }
                });
        });
    }

    /** A decision nobody waits for any more (the caller cancelled) frees the slots it holds. */
    private static void deliver(UniEmitter<? super RateLimitDecision> emitter, AtomicBoolean ended, RateLimitDecision d) {
        if (ended.get()) {
            d.release();
        } else {
            emitter.complete(d);
        }
    }

    /** Proceeds with the intercepted method; if it throws, the decision's slots are freed first. */
    static Object proceedFreeingOnFailure(InvocationContext ctx, RateLimitDecision d) throws Exception {
        try {
            return ctx.proceed();
        } catch (Exception | Error e) {
            d.release();
            throw e;
        }
    }

    @SuppressWarnings("unchecked")
    private static CompletionStage<Object> castStage(Object stage) {
        return (CompletionStage<Object>) stage;
    }

    @SuppressWarnings("unchecked")
    private static Multi<Object> proceedMulti(InvocationContext ctx) {
        try {
            return (Multi<Object>) ctx.proceed();
        } catch (Exception e) {
            return Multi.createFrom().failure(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Uni<Object> proceedUni(InvocationContext ctx) {
        try {
            return (Uni<Object>) ctx.proceed();
        } catch (Exception e) {
            return Uni.createFrom().failure(e);
        }
    }

    private RoutingContext currentRoutingContext() {
        return HttpLimits.current(currentRequest);
    }
}
