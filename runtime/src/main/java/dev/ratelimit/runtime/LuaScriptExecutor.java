package dev.ratelimit.runtime;

import org.jboss.logging.Logger;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import io.vertx.mutiny.redis.client.Command;

/**
 * Runs a recorded script on the Quarkus Redis client, without blocking: {@code EVALSHA} first, and
 * when the server does not know the script ({@code NOSCRIPT}: a restart, {@code SCRIPT FLUSH}, a
 * cluster node that never saw it, a promoted replica) {@code EVAL} with the body, which also caches
 * it there for the next call. Works the same on standalone, sentinel and cluster clients, since the
 * client routes each command by its first key.
 */
public class LuaScriptExecutor {

    private static final Logger LOG = Logger.getLogger(LuaScriptExecutor.class);

    private final Redis redis;

    public LuaScriptExecutor(Redis redis) {
        this.redis = redis;
    }

    /** Runs {@code script} with these keys and arguments. */
    public Uni<Response> execute(LuaScript script, String[] keys, String[] args) {
        return redis.send(request(Command.EVALSHA, script.sha(), keys, args))
                .onFailure(LuaScriptExecutor::isNoScript)
                .recoverWithUni(failure -> {
                    LOG.debugf("Script %s (%s) not cached by Redis, sending it with EVAL", script.name(), script.sha());
                    return redis.send(request(Command.EVAL, script.body(), keys, args));
                });
    }

    /**
     * Loads the scripts so the first decisions need no {@code EVAL}. Best effort: a failure only
     * means the first call pays the fallback.
     */
    public Uni<Void> preload(Iterable<LuaScript> scripts) {
        Uni<Void> chain = Uni.createFrom().voidItem();
        for (LuaScript s : scripts) {
            chain = chain.chain(() -> redis.send(Request.cmd(Command.SCRIPT).arg("LOAD").arg(s.body()))
                    .onItem().invoke(r -> {
                        if (!s.sha().equals(r.toString())) {
                            // would mean the build hashed something else than what Redis runs
                            LOG.warnf("Redis reported SHA %s for script %s, the build recorded %s", r, s.name(), s.sha());
                        }
                    })
                    .replaceWithVoid());
        }
        return chain;
    }

    static boolean isNoScript(Throwable t) {
        String m = t.getMessage();
        return m != null && m.startsWith("NOSCRIPT");
    }

    private static Request request(Command command, String scriptOrSha, String[] keys, String[] args) {
        Request r = Request.cmd(command).arg(scriptOrSha).arg(keys.length);
        for (String k : keys) {
            r.arg(k);
        }
        for (String a : args) {
            r.arg(a);
        }
        return r;
    }
}
