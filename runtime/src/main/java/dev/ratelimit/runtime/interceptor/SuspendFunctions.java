package dev.ratelimit.runtime.interceptor;

import jakarta.interceptor.InvocationContext;

import dev.ratelimit.RateLimitDecision;
import io.smallrye.mutiny.Uni;

/**
 * How the interceptor decides a call to a Kotlin {@code suspend} function. Kotlin is an optional dependency, so the
 * interceptor knows this interface only: the build registers its implementation ({@link KotlinSuspendFunctions}, or
 * {@link CancellableSuspendFunctions} with kotlinx.coroutines) as a bean only when a limited method is a suspend
 * function. Applications without one never load a class referring to Kotlin, and their native builds never link one.
 */
public interface SuspendFunctions {

    /**
     * Decides the intercepted call without blocking: returns {@code COROUTINE_SUSPENDED} and resumes the caller's
     * continuation (the call's last parameter) once the decision is in and, when admitted, the body has run; or, when
     * the decision came at once, goes on as a call that did not suspend.
     */
    Object limit(InvocationContext ctx, Uni<RateLimitDecision> decision) throws Exception;
}
