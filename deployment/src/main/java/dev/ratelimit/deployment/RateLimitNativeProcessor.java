package dev.ratelimit.deployment;

import java.util.List;

import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.backend.redis.RedisBackend;
import dev.ratelimit.runtime.backend.redis.transport.LuaScriptExecutor;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.resilience.CircuitBreaker;
import dev.ratelimit.runtime.resilience.DenyCache;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.nativeimage.RuntimeInitializedClassBuildItem;

/**
 * What a native executable needs from the extension, and why it is so little.
 * <ul>
 * <li>No resources: the Lua scripts are read, checked and hashed by the build and recorded into the
 * {@code LuaScriptRegistry} bean, so they live in the image heap, not as resources.</li>
 * <li>No reflection: the {@code @RateLimit} annotations are recorded into {@code RateLimitedMethods} at
 * static init (both stay initialised at build time: the recorded data is part of the image), the 429
 * body is written by hand, and ArC already registers the intercepted methods it hands to the
 * interceptor.</li>
 * <li>Micrometer only when the application has it (see {@code RateLimitProcessor#metrics}): the one class
 * that references it is otherwise unreachable.</li>
 * </ul>
 * What is left is below. {@code NativeImageSupportTest} pins all of it down in the JVM test suite.
 */
class RateLimitNativeProcessor {

    /**
     * The classes that talk to Redis or read clocks. Quarkus initialises classes at build time by default,
     * and an instance of any of them created during static init would carry build time into the executable ({@code LocalBackend} anchors its clock on {@code currentTimeMillis}, the
     * breaker and the deny cache on {@code nanoTime}, which restarts with every process). Initialised at
     * run time, their statics are read where the application runs, and an instance of one of them in
     * the image heap fails the native build instead of deciding with a stale clock.
     */
    static final List<String> RUNTIME_INITIALIZED = List.of(
            LuaScriptExecutor.class.getName(),
            RedisBackend.class.getName(),
            LocalBackend.class.getName(),
            CircuitBreaker.class.getName(),
            DenyCache.class.getName(),
            DefaultRateLimiter.class.getName());

    @BuildStep
    void runtimeInitializedClasses(BuildProducer<RuntimeInitializedClassBuildItem> classes) {
        for (String name : RUNTIME_INITIALIZED) {
            classes.produce(new RuntimeInitializedClassBuildItem(name));
        }
    }
}
