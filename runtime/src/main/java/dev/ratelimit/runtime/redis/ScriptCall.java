package dev.ratelimit.runtime.redis;

import java.util.function.Function;

import dev.ratelimit.runtime.redis.LuaScriptExecutor.BatchFormat;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.operators.AbstractUni;
import io.smallrye.mutiny.subscription.UniSubscriber;
import io.vertx.redis.client.Response;

/**
 * One script call as a {@code Uni}: sends on subscription, answers once. Written against
 * Mutiny's operator API rather than {@code Uni.createFrom().emitter(...)}: a decision is on every
 * request's path, and this is one object per call where the generic route takes several.
 */
final class ScriptCall<T> extends AbstractUni<T> {
    final LuaScriptExecutor executor;
    final LuaScript script;
    /** The batch script, or null: always sent alone. */
    final LuaScript batch;
    final BatchFormat format;
    final Object tag;
    final String[] keys;
    final String[] args;
    final Function<Response, T> convert;

    ScriptCall(LuaScriptExecutor executor, LuaScript script, LuaScript batch, BatchFormat format, Object tag,
            String[] keys, String[] args, Function<Response, T> convert) {
        this.executor = executor;
        this.script = script;
        this.batch = batch;
        this.format = format;
        this.tag = tag;
        this.keys = keys;
        this.args = args;
        this.convert = convert;
    }

    @Override
    public void subscribe(UniSubscriber<? super T> subscriber) {
        ScriptChannel ch = executor.channel();
        PendingCall<T> p = new PendingCall<>(ch, this, subscriber);
        subscriber.onSubscribe(p);
        if (p.done != 0) {
            return; // cancelled at once: nothing to send
        }
        if (batch != null) {
            ch.submit(p);
        } else {
            ch.sendAlone(p);
        }
    }
}
