package dev.ratelimit.runtime.interceptor;

import java.util.concurrent.CancellationException;

import kotlin.coroutines.CoroutineContext;
import kotlinx.coroutines.JobKt;

/**
 * {@link KotlinSuspendFunctions} for applications with kotlinx.coroutines (nearly all that use coroutines): a coroutine
 * cancelled while its decision was pending resumes with its cancellation when the decision comes, and the body does
 * not run. The build registers this class instead of its parent when kotlinx.coroutines is there, so an application
 * without it never links this one.
 */
public class CancellableSuspendFunctions extends KotlinSuspendFunctions {

    @Override
    Throwable cancellation(CoroutineContext context) {
        try {
            JobKt.ensureActive(context); // no Job in the context: never cancelled
            return null;
        } catch (CancellationException e) {
            return e;
        }
    }
}
