package dev.ratelimit.runtime.backend.redis.transport;

import java.util.Arrays;
import java.util.function.Function;

import dev.ratelimit.runtime.backend.redis.script.LuaScript;
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

    /**
     * Whether this call repeats {@code o}: both batchable into the same script with the same format, and the same call
     * ({@link #same}). Whether the format lets them stand as one entry is {@link BatchFormat#repeatable}.
     */
    boolean repeats(ScriptCall<?> o) {
        return batch == o.batch && format == o.format && same(this, o);
    }

    /** The same call: equal keys and arguments, and tags that are one object or arrays of the same objects. */
    static boolean same(ScriptCall<?> a, ScriptCall<?> b) {
        return sameTag(a.tag, b.tag) && Arrays.equals(a.keys, b.keys) && Arrays.equals(a.args, b.args);
    }

    private static boolean sameTag(Object a, Object b) {
        if (a == b) {
            return true;
        }
        if (!(a instanceof Object[] x) || !(b instanceof Object[] y) || x.length != y.length) {
            return false;
        }
        for (int i = 0; i < x.length; i++) {
            if (x[i] != y[i]) {
                return false;
            }
        }
        return true;
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
