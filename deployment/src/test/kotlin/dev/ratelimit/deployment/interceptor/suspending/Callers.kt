package dev.ratelimit.deployment.interceptor.suspending

import dev.ratelimit.RateLimitExceededException
import io.vertx.core.Context
import java.util.concurrent.CompletableFuture
import java.util.concurrent.Executor
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlin.coroutines.Continuation
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.coroutines.startCoroutine
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Job
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeoutOrNull

/**
 * Kotlin callers of [Orders] for the Java tests: each call runs in a coroutine on a single-thread dispatcher whose
 * thread is named [THREAD], and reports what its call site saw.
 */
class Callers(private val orders: Orders) : AutoCloseable {

    companion object {
        const val THREAD = "suspend-caller"
    }

    private val executor = Executors.newSingleThreadExecutor { task -> Thread(task, THREAD).apply { isDaemon = true } }
    private val dispatcher = executor.asCoroutineDispatcher()
    private val scope = CoroutineScope(dispatcher)

    /** What a call site saw: the value or the exception caught there, and the thread the caller went on on. */
    data class Outcome(val value: Any?, val caught: Throwable?, val thread: String)

    private suspend fun outcomeOf(call: suspend () -> Any?): Outcome =
        try {
            Outcome(call(), null, threadName())
        } catch (e: RateLimitExceededException) {
            Outcome(null, e, threadName())
        } catch (e: OrderRefused) {
            Outcome(null, e, threadName())
        }

    /** Calls [Orders.find]; what it throws is thrown here, out of `runBlocking`. */
    fun find(id: Int): String = runBlocking(dispatcher) { orders.find(id) }

    fun findCaught(id: Int): Outcome = runBlocking(dispatcher) { outcomeOf { orders.find(id) } }

    fun threads(): Outcome = runBlocking(dispatcher) { outcomeOf { orders.threads() } }

    fun where(): Outcome = runBlocking(dispatcher) { outcomeOf { orders.where() } }

    fun refuse(order: Int, afterSuspending: Boolean): Outcome =
        runBlocking(dispatcher) { outcomeOf { orders.refuse(order, afterSuspending) } }

    fun quick(): Outcome = runBlocking(dispatcher) { outcomeOf { orders.quick() } }

    fun holdThenFail(order: Int): Outcome = runBlocking(dispatcher) { outcomeOf { orders.holdThenFail(order) } }

    /** A call of [Orders.hold] left running: [holding] completes once its body runs, [gate] lets it end. */
    inner class Holder {
        val holding = CompletableDeferred<Unit>()
        val gate = CompletableDeferred<Unit>()
        val result: CompletableFuture<Outcome> = CompletableFuture()
        val job: Job = scope.launch { result.complete(outcomeOf { orders.hold(holding, gate) }) }

        fun awaitHolding(): Boolean = runBlocking { withTimeoutOrNull(5_000) { holding.await() } != null }

        fun finish(): Outcome {
            gate.complete(Unit)
            return result.get(5, TimeUnit.SECONDS)
        }
    }

    fun startHolding(): Holder = Holder()

    /**
     * Starts [Orders.quick] in a coroutine and cancels it at once, while its decision is pending; true once the
     * coroutine ended cancelled.
     */
    fun quickCancelledWhilePending(): Boolean = runBlocking {
        val job = scope.launch(start = CoroutineStart.UNDISPATCHED) { orders.quick() }
        job.cancel()
        withTimeoutOrNull(5_000) { job.join() } != null && job.isCancelled
    }

    /**
     * Calls [Orders.where] from a coroutine whose dispatcher runs its tasks on the Vert.x [context] (an event loop):
     * the outcome, with the thread the coroutine started on first.
     */
    fun whereOn(context: Context): CompletableFuture<Pair<String, Outcome>> {
        val onContext = Executor { task -> context.runOnContext { task.run() } }.asCoroutineDispatcher()
        val done = CompletableFuture<Pair<String, Outcome>>()
        CoroutineScope(onContext).launch {
            val start = threadName()
            done.complete(start to outcomeOf { orders.where() })
        }
        return done
    }

    /**
     * Calls [Orders.where] from a coroutine without a dispatcher (started with `startCoroutine`, as frameworks bridging
     * to Kotlin may), on the Vert.x [context]: the thread it started on, and the outcome.
     */
    fun whereWithoutDispatcherOn(context: Context): CompletableFuture<Pair<String, Outcome>> {
        val done = CompletableFuture<Pair<String, Outcome>>()
        context.runOnContext {
            val start = threadName()
            val call: suspend () -> Outcome = { outcomeOf { orders.where() } }
            call.startCoroutine(Continuation(EmptyCoroutineContext) { result ->
                result.fold({ done.complete(start to it) }, { done.completeExceptionally(it) })
            })
        }
        return done
    }

    override fun close() {
        executor.shutdownNow()
    }
}
