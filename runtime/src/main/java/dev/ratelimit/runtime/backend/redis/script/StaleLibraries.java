package dev.ratelimit.runtime.backend.redis.script;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

import io.smallrye.mutiny.Uni;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * Keeps the function libraries of past versions from piling up in Redis. Each version of the extension loads a library
 * of its own ({@code ratelimit_<hash>}), and Redis keeps functions until they are deleted: without this, every deploy
 * would leave one behind for ever. Each time an instance loads its library, it stamps the library's name with Redis's
 * time in a sorted set ({@code <prefix>:function-libraries}), then deletes the libraries stamped there more than
 * {@link #RETENTION_MILLIS} ago. So Redis holds the libraries loaded within the last week. An instance of an old
 * version still running past that (no deploy of it for a week) finds its functions gone on its next call, resends it
 * as a script, and loads and stamps its library again. Libraries of versions from before this bookkeeping, and of other
 * key prefixes, are never deleted here: only what this registry records.
 */
public final class StaleLibraries {

    private static final Logger LOG = Logger.getLogger(StaleLibraries.class);

    /** How long a library is kept after it was last loaded. */
    static final long RETENTION_MILLIS = TimeUnit.DAYS.toMillis(7);

    private StaleLibraries() {
    }

    /** The sorted set of libraries and when each was last loaded, for the key prefix {@code prefix}. */
    public static String registry(String prefix) {
        return prefix + ":function-libraries";
    }

    /**
     * Stamps {@code loaded} and deletes the libraries stamped longer than {@link #RETENTION_MILLIS} ago; never fails (a
     * user whose ACL forbids any of it keeps every library, as before). The names deleted, for tests and logs.
     */
    public static Uni<List<String>> sweep(Commands redis, String registry, String loaded) {
        return redis.send(Request.cmd(Command.TIME)).chain(time -> {
            long now = time.get(0).toLong() * 1000 + time.get(1).toLong() / 1000;
            return redis.send(Request.cmd(Command.ZADD).arg(registry).arg(now).arg(loaded))
                    .chain(() -> redis.send(Request.cmd(Command.PEXPIRE).arg(registry).arg(2 * RETENTION_MILLIS)))
                    .chain(() -> redis.send(Request.cmd(Command.ZRANGEBYSCORE).arg(registry).arg("-inf")
                            .arg(now - RETENTION_MILLIS)));
        }).chain(stale -> delete(redis, registry, names(stale, loaded)))
                .onFailure().recoverWithItem(failure -> {
                    LOG.debugf("Could not sweep the function libraries of past versions (%s)", failure.toString());
                    return List.of();
                });
    }

    private static List<String> names(Response stale, String loaded) {
        List<String> names = new ArrayList<>();
        if (stale != null) {
            for (Response r : stale) {
                String name = r.toString();
                if (!name.equals(loaded)) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    private static Uni<List<String>> delete(Commands redis, String registry, List<String> names) {
        Uni<Void> done = Uni.createFrom().voidItem();
        for (String name : names) {
            done = done.chain(() -> redis.send(Request.cmd(Command.FUNCTION).arg("DELETE").arg(name))
                    // already gone (another instance swept it, an operator deleted it): only the stamp is left
                    .onFailure().recoverWithNull()
                    .chain(() -> redis.send(Request.cmd(Command.ZREM).arg(registry).arg(name))).replaceWithVoid());
        }
        return done.map(ignored -> {
            if (!names.isEmpty()) {
                LOG.debugf("Deleted the rate-limit function libraries of past versions not loaded for %d days: %s",
                        TimeUnit.MILLISECONDS.toDays(RETENTION_MILLIS), names);
            }
            return names;
        });
    }
}
