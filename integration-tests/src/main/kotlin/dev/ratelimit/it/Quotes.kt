package dev.ratelimit.it

import dev.ratelimit.RateLimit
import jakarta.enterprise.context.ApplicationScoped
import jakarta.ws.rs.GET
import jakarta.ws.rs.Path
import jakarta.ws.rs.PathParam
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking

/** A Kotlin service: its limited suspend function is decided by the interceptor without blocking a thread. */
@ApplicationScoped
open class Quotes {

    @RateLimit("quotes")
    open suspend fun quote(id: String): String {
        delay(1) // really suspends: the body goes on after the decision and after this
        return "quote $id"
    }
}

/** Calls the Kotlin service from a coroutine; a denial becomes the extension's 429. */
@Path("/quotes")
class QuoteResource(private val quotes: Quotes) {

    @GET
    @Path("{id}")
    fun quote(@PathParam("id") id: String): String = runBlocking { quotes.quote(id) }
}
