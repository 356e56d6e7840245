package dev.ratelimit.deployment.validation.suspending

import dev.ratelimit.RateLimit
import jakarta.enterprise.context.ApplicationScoped
import kotlinx.coroutines.delay

/** Limited suspend functions of an open class: final (Kotlin's default) or open, suspending or not. */
@ApplicationScoped
open class Reports {

    /** Final, and suspends: its state machine would resume it by calling it again, virtually. */
    @RateLimit("reports")
    suspend fun render(id: Int): String {
        delay(1)
        return "report $id"
    }

    /** Final, and never suspends. */
    @RateLimit("reports")
    suspend fun title(id: Int): String = "report $id"

    /** Open, and suspends: resumes through its static `archive$suspendImpl`, not through the interceptor. */
    @RateLimit("reports")
    open suspend fun archive(id: Int): String {
        delay(1)
        return "archived $id"
    }
}
