package dev.ratelimit.runtime.interceptor;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import jakarta.interceptor.InvocationContext;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitExceededException;
import io.smallrye.mutiny.Uni;
import kotlin.ResultKt;
import kotlin.Unit;
import kotlin.coroutines.Continuation;
import kotlin.coroutines.ContinuationInterceptor;
import kotlin.coroutines.CoroutineContext;
import kotlin.coroutines.intrinsics.IntrinsicsKt;
import kotlin.coroutines.jvm.internal.CoroutineStackFrame;

/**
 * Decides calls to Kotlin {@code suspend} functions without blocking a thread. Kotlin compiles
 * {@code suspend fun f(a: A): T} to {@code Object f(A a, Continuation<? super T> caller)}, which returns the value,
 * throws, or returns {@code COROUTINE_SUSPENDED} and resumes {@code caller} later. So does the interceptor: it
 * subscribes to the decision and suspends; when the decision comes, the caller's coroutine goes on <em>on its own
 * dispatcher</em> (the {@link ContinuationInterceptor} of its context), not on the thread that completed the decision
 * (a Redis event loop, or the timeout's thread):
 * <ul>
 * <li>denied: the caller resumes with {@link RateLimitExceededException}, thrown at its call site;</li>
 * <li>admitted: the body starts there ({@code ctx.proceed()}, which ArC allows after the interceptor returned); a value
 * or an exception it gives at once resumes the caller, and a body that suspends resumes the caller itself.</li>
 * </ul>
 * A decision that comes while the interceptor is still subscribing (the local backend, the deny cache) is used at
 * once, on the caller's thread: the call then goes on as one that did not suspend. A coroutine without a dispatcher
 * goes on in the Vert.x context it called from, as {@code Uni} methods do, or where the decision completed.
 * <p>
 * Slots of {@code concurrency} policies are held until the body ends: the body gets a continuation of its own
 * ({@link Releasing}) that frees them before handing its outcome to the caller.
 * <p>
 * The continuation given to the interceptor is not cancellable (Kotlin's cancellation belongs to kotlinx.coroutines,
 * an optional library): a coroutine cancelled while its decision is pending waits for it, which takes at most the
 * Redis timeout. {@link CancellableSuspendFunctions} then resumes it with its cancellation without running the body.
 * <p>
 * The one class, with its subclass, that refers to Kotlin: see {@link SuspendFunctions}. A singleton bean registered
 * by the build, without a bean-defining annotation: the build registers this class or its subclass, never both.
 */
public class KotlinSuspendFunctions implements SuspendFunctions {

    static final Object COROUTINE_SUSPENDED = IntrinsicsKt.getCOROUTINE_SUSPENDED();

    @Override
    public Object limit(InvocationContext ctx, Uni<RateLimitDecision> decision) throws Exception {
        Call call = new Call(this, ctx);
        // without a dispatcher of its own, the coroutine goes on where it was called, like a Uni
        (call.dispatcher == null ? RateLimitInterceptor.onCallerContext(decision) : decision).subscribe()
                .with(call::arrive, call::arrive);
        return call.suspendOrGoOn();
    }

    /**
     * The exception a coroutine cancelled since it called resumes with, or null while it is active. Plain Kotlin
     * cannot tell; {@link CancellableSuspendFunctions} asks kotlinx.coroutines.
     */
    Throwable cancellation(CoroutineContext context) {
        return null;
    }

    /**
     * One call waiting for its decision. It is also the continuation dispatched on the caller's dispatcher when the
     * decision comes after the interceptor suspended: {@link #resumeWith} goes on from there.
     */
    static final class Call implements Continuation<Object> {

        private static final int SUBSCRIBING = 0;
        /** The interceptor returned {@code COROUTINE_SUSPENDED}: the decision resumes the caller. */
        private static final int SUSPENDED = 1;
        /** The decision came while subscribing: the interceptor goes on with it. */
        private static final int DECIDED = 2;
        private static final AtomicIntegerFieldUpdater<Call> STATE = AtomicIntegerFieldUpdater.newUpdater(Call.class,
                "state");

        private final KotlinSuspendFunctions owner;
        private final InvocationContext ctx;
        private final Continuation<Object> caller;
        /** Where the caller's coroutine runs; null when it has no dispatcher. */
        final ContinuationInterceptor dispatcher;
        private volatile int state;
        /** The decision, or the failure that stood for it; published by the state's change. */
        private Object outcome;

        @SuppressWarnings("unchecked")
        Call(KotlinSuspendFunctions owner, InvocationContext ctx) {
            this.owner = owner;
            this.ctx = ctx;
            Object[] params = ctx.getParameters();
            this.caller = (Continuation<Object>) params[params.length - 1];
            this.dispatcher = caller.getContext().get(ContinuationInterceptor.Key);
        }

        void arrive(Object decisionOrFailure) {
            outcome = decisionOrFailure;
            if (STATE.compareAndSet(this, SUBSCRIBING, DECIDED)) {
                return; // still in the interceptor, on the caller's thread: suspendOrGoOn goes on with it
            }
            if (dispatcher == null) {
                resumeWith(Unit.INSTANCE);
            } else {
                dispatcher.interceptContinuation(this).resumeWith(Unit.INSTANCE);
            }
        }

        Object suspendOrGoOn() throws Exception {
            if (STATE.compareAndSet(this, SUBSCRIBING, SUSPENDED)) {
                return COROUTINE_SUSPENDED;
            }
            if (outcome instanceof Exception e) {
                throw e;
            }
            if (outcome instanceof Error e) {
                throw e;
            }
            RateLimitDecision d = (RateLimitDecision) outcome;
            if (!d.allowed()) {
                throw new RateLimitExceededException(d);
            }
            return proceed(d);
        }

        /** On the caller's dispatcher, once the decision came after the interceptor suspended. */
        @Override
        public void resumeWith(Object ignored) {
            if (outcome instanceof Throwable t) {
                caller.resumeWith(ResultKt.createFailure(t));
                return;
            }
            RateLimitDecision d = (RateLimitDecision) outcome;
            Throwable cancelled = owner.cancellation(caller.getContext());
            if (cancelled != null) {
                d.release(); // nobody runs the body: its slots are free at once
                caller.resumeWith(ResultKt.createFailure(cancelled));
                return;
            }
            if (!d.allowed()) {
                caller.resumeWith(ResultKt.createFailure(new RateLimitExceededException(d)));
                return;
            }
            Object result;
            try {
                result = proceed(d);
            } catch (Throwable e) {
                caller.resumeWith(ResultKt.createFailure(e));
                return;
            }
            if (result != COROUTINE_SUSPENDED) {
                caller.resumeWith(result);
            } // else the body resumes the caller when it ends
        }

        @Override
        public CoroutineContext getContext() {
            return caller.getContext();
        }

        /**
         * Runs the body. With slots to free, it gets a continuation that frees them when it ends after suspending; a
         * body that ends at once (value or exception) frees them here.
         */
        private Object proceed(RateLimitDecision d) throws Exception {
            if (!d.holdsSlots()) {
                return ctx.proceed();
            }
            Object[] params = ctx.getParameters().clone();
            params[params.length - 1] = new Releasing(caller, d);
            ctx.setParameters(params);
            Object result = RateLimitInterceptor.proceedFreeingOnFailure(ctx, d);
            if (result != COROUTINE_SUSPENDED) {
                d.release();
            }
            return result;
        }
    }

    /**
     * The continuation a body holding concurrency slots resumes when it ends after suspending: frees the slots, then
     * hands the outcome (value or exception, unchanged) to the caller. A stack frame of the caller's, for debuggers and
     * kotlinx.coroutines' stack traces.
     */
    static final class Releasing implements Continuation<Object>, CoroutineStackFrame {

        private final Continuation<Object> caller;
        private final RateLimitDecision decision;

        Releasing(Continuation<Object> caller, RateLimitDecision decision) {
            this.caller = caller;
            this.decision = decision;
        }

        @Override
        public CoroutineContext getContext() {
            return caller.getContext();
        }

        @Override
        public void resumeWith(Object result) {
            decision.release();
            caller.resumeWith(result);
        }

        @Override
        public CoroutineStackFrame getCallerFrame() {
            return caller instanceof CoroutineStackFrame frame ? frame : null;
        }

        @Override
        public StackTraceElement getStackTraceElement() {
            return null;
        }
    }
}
