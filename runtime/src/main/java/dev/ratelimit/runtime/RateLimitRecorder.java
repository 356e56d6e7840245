package dev.ratelimit.runtime;

import java.util.ArrayList;
import java.util.List;
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
     * The scripts, as read, checked and hashed by the build: names to the pieces of their bodies, and to their SHA-1.
     * A body is recorded in pieces ({@link #pieces}): the recorder writes each string as one constant of a class file,
     * at most 65,535 bytes, and the batch script holding every algorithm is about that long. Each body joined here is
     * checked against the SHA-1 the build computed.
     */
    public Supplier<LuaScriptRegistry> scripts(Map<String, List<String>> pieces, Map<String, String> shas) {
        Map<String, LuaScript> scripts = new TreeMap<>();
        pieces.forEach((name, parts) -> {
            String body = String.join("", parts);
            String sha = shas.get(name);
            if (!LuaScript.sha1(body).equals(sha)) {
                throw new IllegalStateException("The recorded Lua script '" + name + "' does not hash to " + sha
                        + " as it did at build time; rebuild the application");
            }
            scripts.put(name, new LuaScript(name, body, sha));
        });
        LuaScriptRegistry registry = new LuaScriptRegistry(scripts);
        return () -> registry;
    }

    /** The most characters of a recorded piece: even at 3 bytes each (modified UTF-8), within a class constant. */
    public static final int PIECE_CHARS = 16_000;

    /** {@code body} in pieces of at most {@link #PIECE_CHARS} characters, cut at line ends where lines allow. */
    public static List<String> pieces(String body) {
        List<String> pieces = new ArrayList<>();
        int start = 0;
        while (body.length() - start > PIECE_CHARS) {
            int end = body.lastIndexOf('\n', start + PIECE_CHARS - 1) + 1;
            if (end <= start) {
                end = start + PIECE_CHARS; // one line longer than a piece
                if (Character.isHighSurrogate(body.charAt(end - 1))) {
                    end--; // never between the two halves of a character
                }
            }
            pieces.add(body.substring(start, end));
            start = end;
        }
        pieces.add(body.substring(start));
        return pieces;
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
