package dev.ratelimit.runtime.backend.redis.transport;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import io.smallrye.mutiny.subscription.UniSubscriber;
import io.smallrye.mutiny.subscription.UniSubscription;
import io.vertx.core.AsyncResult;
import io.vertx.core.Handler;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Response;

/** A call in flight: the reply handler, and the subscription its subscriber may cancel. */
final class PendingCall<T> implements Handler<AsyncResult<Response>>, UniSubscription {
    @SuppressWarnings("rawtypes")
    static final AtomicIntegerFieldUpdater<PendingCall> DONE = AtomicIntegerFieldUpdater.newUpdater(PendingCall.class,
            "done");

    final ScriptChannel channel;
    final ScriptCall<T> call;
    final UniSubscriber<? super T> subscriber;
    volatile int done;
    boolean evalSent;
    /** Whether it was sent as a call of the function library (see {@link LuaScriptExecutor#functionOf}). */
    boolean functionSent;
    /** Set when it is gathered into a run (see {@link ScriptChannel#submit}): its place in the channel's order. */
    long seq;
    /** Whether its format lets it stand with identical calls as one entry ({@link BatchFormat#repeatable}). */
    boolean repeatable;
    /** Whether it repeats the call gathered just before it, and so joins that call's entry. */
    boolean joinsPrevious;
    /** On a cluster, the slot of its keys once gathered ({@link ClusterSlots#slot}); else -1. */
    int slot = -1;
    /**
     * On a cluster, the gathering it was sent alone from, whose sends it counts as one of until answered (see
     * {@link ScriptChannel#SENT_PER_NODE}); else null.
     */
    ScriptChannel.Gathering gathering;

    PendingCall(ScriptChannel channel, ScriptCall<T> call, UniSubscriber<? super T> subscriber) {
        this.channel = channel;
        this.call = call;
        this.subscriber = subscriber;
    }

    /** Whether it joins the entry of {@code previous}, the call taken just before it into a run. */
    boolean joins(PendingCall<?> previous) {
        return joinsPrevious && seq == previous.seq + 1;
    }

    @Override
    public void handle(AsyncResult<Response> ar) {
        channel.answered(ar.succeeded() || !LuaScriptExecutor.isConnectionLost(ar.cause()));
        if (ar.succeeded()) {
            channel.answering = true;
            try {
                succeed(ar.result());
            } finally {
                channel.answering = false;
                channel.calls.decrementAndGet(); // its caller has its answer (and may have made its next call)
                sendAnswered();
            }
            return;
        }
        Throwable failure = ar.cause();
        if (!evalSent && channel.owner.resendAsEval(failure, functionSent)) {
            evalSent = true;
            LuaScriptExecutor.LOG.debugf("Script %s (%s) not cached by Redis, sending it with EVAL", call.script.name(), call.script.sha());
            channel.send(LuaScriptExecutor.request(Command.EVAL, call.script.body(), call.keys, call.args), this);
            return;
        }
        channel.check(failure);
        try {
            fail(failure);
        } finally {
            channel.calls.decrementAndGet();
            sendAnswered();
        }
    }

    private void sendAnswered() {
        ScriptChannel.Gathering g = gathering;
        if (g != null) {
            gathering = null;
            channel.sendAnswered(g);
        }
    }

    void succeed(Response reply) {
        if (DONE.compareAndSet(this, 0, 1)) {
            T item;
            try {
                item = call.convert.apply(reply);
            } catch (RuntimeException e) {
                subscriber.onFailure(e);
                return;
            }
            subscriber.onItem(item);
        }
    }

    void fail(Throwable failure) {
        if (DONE.compareAndSet(this, 0, 1)) {
            subscriber.onFailure(failure);
        }
    }

    @Override
    public void cancel() {
        // the caller gave up (its timeout): the reply, if it ever comes, is dropped
        if (DONE.compareAndSet(this, 0, 1)) {
            channel.check(null);
        }
    }
}
