package dev.ratelimit.runtime.redis;

import dev.ratelimit.runtime.redis.LuaScriptExecutor.BatchFormat;
import io.vertx.core.AsyncResult;
import io.vertx.core.Handler;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;

/** Calls sent as one run of their batch script, and the handler of its reply. */
final class BatchRun implements Handler<AsyncResult<Response>> {
    final ScriptChannel channel;
    final PendingCall<?>[] calls;
    final Object[] tags;
    /** Chosen by the format when the run is first laid out. */
    LuaScript script;
    boolean evalSent;

    BatchRun(ScriptChannel channel, PendingCall<?>[] calls) {
        this.channel = channel;
        this.calls = calls;
        this.tags = new Object[calls.length];
        for (int i = 0; i < calls.length; i++) {
            tags[i] = calls[i].call.tag;
        }
    }

    /** The run as a command: {@code EVALSHA} with the script's SHA, or {@code EVAL} with its body. */
    Request request(Command command) {
        if (script == null) {
            ScriptCall<?> first = calls[0].call;
            script = first.format.script(first.batch, tags);
        }
        String scriptOrSha = command == Command.EVAL ? script.body() : script.sha();
        int keyCount = 0;
        for (PendingCall<?> p : calls) {
            keyCount += p.call.keys.length;
        }
        Request r = Request.cmd(command).arg(scriptOrSha).arg(keyCount);
        for (PendingCall<?> p : calls) {
            for (String k : p.call.keys) {
                r.arg(k);
            }
        }
        int[] keyCounts = new int[calls.length];
        String[][] args = new String[calls.length][];
        for (int i = 0; i < calls.length; i++) {
            ScriptCall<?> c = calls[i].call;
            keyCounts[i] = c.keys.length;
            args[i] = c.args;
        }
        calls[0].call.format.write(r, keyCounts, args, tags);
        return r;
    }

    @Override
    public void handle(AsyncResult<Response> ar) {
        channel.answered(ar.succeeded() || !LuaScriptExecutor.isConnectionLost(ar.cause()));
        if (!channel.putOff(this, ar)) {
            replied(ar);
        }
    }

    void replied(AsyncResult<Response> ar) {
        if (ar.succeeded()) {
            Response replies = ar.result();
            BatchFormat format = calls[0].call.format;
            channel.answering = true;
            try {
                int at = 0;
                for (int i = 0; i < calls.length; i++) {
                    ScriptCall<?> c = calls[i].call;
                    int width = 0;
                    try {
                        width = format.replyWidth(c.keys.length, c.tag);
                        if (width < 1 || at + width > replies.size()) {
                            calls[i].fail(new IllegalStateException("Script " + script.name() + " replied "
                                    + replies.size() + " values for a run of " + calls.length
                                    + " calls; this call's share starts at " + at + " and takes " + width));
                        } else {
                            Response first = replies.get(at);
                            if (first != null && first.type() == ResponseType.ERROR) {
                                // this call failed in Redis, alone: as it would outside a batch
                                calls[i].fail(first instanceof Throwable t ? t : new IllegalStateException(first.toString()));
                            } else {
                                calls[i].succeed(new ReplySlice(replies, at, width, calls.length));
                            }
                        }
                    } catch (RuntimeException e) {
                        // a reply that cannot be read, or a subscriber that throws, must not keep the other
                        // callers of the run waiting; the call fails unless it already had its answer
                        LuaScriptExecutor.LOG.errorf(e, "A rate-limit caller failed handling its decision");
                        try {
                            calls[i].fail(e);
                        } catch (RuntimeException again) {
                            LuaScriptExecutor.LOG.errorf(again, "A rate-limit caller failed handling a failed decision");
                        }
                    }
                    at += Math.max(width, 0);
                }
            } finally {
                channel.answering = false;
                channel.calls.addAndGet(-calls.length); // counted until its callers have their answers
            }
            return;
        }
        Throwable failure = ar.cause();
        if (!evalSent && LuaScriptExecutor.isNoScript(failure)) {
            evalSent = true;
            LuaScriptExecutor.LOG.debugf("Script %s (%s) not cached by Redis, sending it with EVAL", script.name(), script.sha());
            Request eval;
            try {
                eval = request(Command.EVAL);
            } catch (RuntimeException e) {
                failure = e; // laid out once already, but a format may still fail: fail the run now
                eval = null;
            }
            if (eval != null) {
                channel.send(eval, this);
                return;
            }
        } else {
            channel.check(failure);
        }
        try {
            failAll(failure);
        } finally {
            channel.calls.addAndGet(-calls.length);
        }
    }

    void failAll(Throwable failure) {
        for (PendingCall<?> p : calls) {
            try {
                p.fail(failure);
            } catch (RuntimeException e) {
                LuaScriptExecutor.LOG.errorf(e, "A rate-limit caller failed handling a failed decision");
            }
        }
    }
}
