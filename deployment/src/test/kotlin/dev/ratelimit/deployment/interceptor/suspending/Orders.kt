package dev.ratelimit.deployment.interceptor.suspending

import dev.ratelimit.RateLimit
import jakarta.enterprise.context.ApplicationScoped
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.delay

/**
 * Limited suspend functions. The class and its functions are `open`: Kotlin makes them final by default, and ArC
 * intercepts by subclassing (applications usually let the all-open compiler plugin open them).
 */
// tag::bean[]
@ApplicationScoped
open class Orders {
// end::bean[]

    companion object {
        /** Bodies of `single` that started. */
        @JvmField
        val started = AtomicInteger()

        /** The last exception a body threw. */
        @JvmField
        @Volatile
        var lastRefused: OrderRefused? = null
    }

    // tag::bean[]
    @RateLimit("counted")
    open suspend fun find(id: Int): String = "order $id"

    /** Suspends for real; the threads the body ran on before and after it suspended. */
    @RateLimit("bodies")
    open suspend fun threads(): List<String> = threadsAroundDelay()
    // end::bean[]

    /** The same as [threads], under a policy that does not run out in the tests. */
    @RateLimit("anywhere")
    open suspend fun where(): List<String> = threadsAroundDelay()

    // tag::bean[]

    private suspend fun threadsAroundDelay(): List<String> {
        val before = threadName()
        delay(20)
        return listOf(before, threadName())
    }
    // end::bean[]

    @RateLimit("anywhere")
    open suspend fun refuse(order: Int, afterSuspending: Boolean): String {
        if (afterSuspending) {
            delay(10)
        }
        val refused = OrderRefused(order)
        lastRefused = refused
        throw refused
    }

    /** Holds the one slot of `single`: tells [holding] it runs, then waits for [gate]. */
    @RateLimit("single")
    open suspend fun hold(holding: CompletableDeferred<Unit>, gate: CompletableDeferred<Unit>): String {
        started.incrementAndGet()
        holding.complete(Unit)
        gate.await()
        return "held"
    }

    /** Takes the slot of `single` for a moment (its body suspends), then fails. */
    @RateLimit("single")
    open suspend fun holdThenFail(order: Int): String {
        started.incrementAndGet()
        delay(50)
        throw OrderRefused(order)
    }

    /** Takes the slot of `single` and gives it back at once: its body does not suspend. */
    @RateLimit("single")
    open suspend fun quick(): String {
        started.incrementAndGet()
        return "quick"
    }
// tag::bean[]
}
// end::bean[]

/**
 * A failure of a body. It has no constructor kotlinx.coroutines could copy it with (in debug mode, with assertions on,
 * it copies the exceptions it can to add the coroutine's frames to their stack trace), so the caller gets this very
 * instance.
 */
class OrderRefused(val order: Int) : IllegalStateException("order $order refused")

/**
 * The current thread's name, without what kotlinx.coroutines appends to it in debug mode (on with assertions, as in
 * tests): `" @coroutine#12"`.
 */
fun threadName(): String = Thread.currentThread().name.substringBefore(" @")
