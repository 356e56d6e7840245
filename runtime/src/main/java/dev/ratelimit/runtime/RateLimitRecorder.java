package dev.ratelimit.runtime;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;
import dev.ratelimit.runtime.policy.RateLimitSpec;
import dev.ratelimit.runtime.policy.RateLimitedMethods;
import io.quarkus.runtime.annotations.Recorder;
import io.quarkus.runtime.shutdown.ShutdownListener;

/**
 * Hands what the build prepared to the runtime.
 */
@Recorder
public class RateLimitRecorder {

    /**
     * The scripts, as read, checked and hashed by the build: names to {@code [body, sha]}.
     */
    public Supplier<LuaScriptRegistry> scripts(Map<String, String> bodies, Map<String, String> shas) {
        Map<String, LuaScript> scripts = new TreeMap<>();
        bodies.forEach((name, body) -> scripts.put(name, new LuaScript(name, body, shas.get(name))));
        LuaScriptRegistry registry = new LuaScriptRegistry(scripts);
        return () -> registry;
    }

    /** Forgets the methods of a previous (dev-mode) build. */
    public void clearMethods() {
        RateLimitedMethods.clear();
    }

    /** Records one {@code @RateLimit} of a method. */
    public void addMethod(String methodKey, String policy, int cost, String key, boolean settle) {
        RateLimitedMethods.add(methodKey, new RateLimitSpec(policy, cost, key, settle));
    }

    /**
     * What gives back the leased slices when the application begins to stop ({@code lease}): before the HTTP server
     * and the connections the backend opened on its event loops close, which happens before {@code ShutdownEvent}.
     */
    public ShutdownListener shutdownListener() {
        return new ShutdownListener() {
            @Override
            public void preShutdown(ShutdownNotification notification) {
                try {
                    RateLimitProducer.stopStarted();
                } finally {
                    notification.done();
                }
            }
        };
    }
}
