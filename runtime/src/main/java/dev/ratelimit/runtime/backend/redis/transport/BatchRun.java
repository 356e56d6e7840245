package dev.ratelimit.runtime.backend.redis.transport;

import java.util.Arrays;

import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import io.vertx.core.AsyncResult;
import io.vertx.core.Handler;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;

/**
 * Calls sent as one run of their batch script, and the handler of its reply. When the format allows it, consecutive
 * identical calls (a burst on a hot key) go as one entry, their key and arguments sent once and their replies read
 * from one reply of the entry.
 */
final class BatchRun implements Handler<AsyncResult<Response>> {
    final ScriptChannel channel;
    final PendingCall<?>[] calls;
    final Object[] tags;
    /** Each call's arguments, in order. */
    private final String[][] args;
    /** Chosen by the format when the run is first laid out. */
    LuaScript script;
    /** Per entry, the number of calls it stands for, when some stand for several; else null. Set with the script. */
    int[] repeats;
    boolean evalSent;
    /** Whether it was last sent as a call of the function library. */
    boolean functionSent;
    /**
     * On a cluster, whether its calls are of several slots (of one node): it then names its first key alone, to be
     * routed by it, and passes every key after {@code @<number of keys>} (see {@code batch.lua}).
     */
    final boolean acrossSlots;

    /** On a cluster, the gathering whose sends it counts as one of (see {@link ScriptChannel#SENT_PER_NODE}); else null. */
    private ScriptChannel.Gathering counted;

    BatchRun(ScriptChannel channel, PendingCall<?>[] calls, ScriptChannel.Gathering counted) {
        this.channel = channel;
        this.counted = counted;
        this.calls = calls;
        this.tags = new Object[calls.length];
        this.args = new String[calls.length][];
        for (int i = 0; i < calls.length; i++) {
            tags[i] = calls[i].call.tag;
            args[i] = calls[i].call.args;
        }
        boolean across = false;
        for (int i = 1; i < calls.length && !across; i++) {
            across = calls[i].slot != calls[0].slot;
        }
        this.acrossSlots = across;
    }

    /**
     * The run as a command: {@code EVAL} with the script's body, else {@code FCALL} of its function when the
     * executor calls functions, else {@code EVALSHA} with its SHA.
     */
    Request request(boolean eval) {
        BatchFormat format = calls[0].call.format;
        if (script == null) {
            script = format.script(calls[0].call.batch, tags);
            repeats = repeats(format);
        }
        String function = eval ? null : channel.owner.functionOf(script);
        functionSent = function != null;
        Command command = eval ? Command.EVAL : function != null ? Command.FCALL : Command.EVALSHA;
        String scriptOrSha = eval ? script.body() : function != null ? function : script.sha();
        int entries = repeats == null ? calls.length : repeats.length;
        // each entry as its first call: every call when none stands for several
        String[][] entryArgs = args;
        Object[] entryTags = tags;
        if (repeats != null) {
            entryArgs = new String[entries][];
            entryTags = new Object[entries];
            for (int e = 0, i = 0; e < entries; i += repeats[e], e++) {
                entryArgs[e] = args[i];
                entryTags[e] = tags[i];
            }
        }
        int[] keyCounts = new int[entries];
        int keyCount = 0;
        for (int e = 0, i = 0; e < entries; i += repeats == null ? 1 : repeats[e], e++) {
            keyCounts[e] = calls[i].call.keys.length;
            keyCount += keyCounts[e];
        }
        Request r = Request.cmd(command).arg(scriptOrSha);
        if (acrossSlots) {
            r.arg(1).arg(calls[0].call.keys[0]).arg("@" + keyCount);
        } else {
            r.arg(keyCount);
        }
        for (int e = 0, i = 0; e < entries; i += repeats == null ? 1 : repeats[e], e++) {
            for (String k : calls[i].call.keys) {
                r.arg(k);
            }
        }
        format.write(r, keyCounts, entryArgs, entryTags);
        if (repeats != null) {
            format.writeRepeats(r, repeats);
        }
        return r;
    }

    /** The entries of this run, when the format lets identical consecutive calls go as one and some do. */
    private int[] repeats(BatchFormat format) {
        if (calls.length < 2 || !format.repeatsAllowed(args, tags)) {
            return null;
        }
        int[] r = new int[calls.length];
        int e = 0;
        r[0] = 1;
        for (int i = 1; i < calls.length; i++) {
            if (!ScriptCall.same(calls[i - 1].call, calls[i].call)) {
                e++;
            }
            r[e]++;
        }
        return e + 1 == calls.length ? null : Arrays.copyOf(r, e + 1);
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
                int entries = repeats == null ? calls.length : repeats.length;
                for (int e = 0, i = 0; e < entries; e++) {
                    int n = repeats == null ? 1 : repeats[e];
                    at = n == 1 ? answerOne(replies, at, i, format) : answerRepeats(replies, at, i, n, format);
                    i += n;
                }
            } finally {
                channel.answering = false;
                channel.calls.addAndGet(-calls.length); // counted until its callers have their answers
                answered();
            }
            return;
        }
        Throwable failure = ar.cause();
        if (!evalSent && channel.owner.resendAsEval(failure, functionSent)) {
            evalSent = true;
            LuaScriptExecutor.LOG.debugf("Script %s (%s) not cached by Redis, sending it with EVAL", script.name(), script.sha());
            Request eval;
            try {
                eval = request(true);
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
            answered();
        }
    }

    /** Its last answer is given: on a cluster, its node may take the next run of its gathering. */
    void answered() {
        ScriptChannel.Gathering g = counted;
        if (g != null) {
            counted = null;
            channel.sendAnswered(g);
        }
    }

    /** Answers call {@code i}, sent on its own, from the run's reply at {@code at}; returns where the next starts. */
    private int answerOne(Response replies, int at, int i, BatchFormat format) {
        ScriptCall<?> c = calls[i].call;
        int width = 0;
        try {
            width = format.replyWidth(c.keys.length, c.tag);
            if (width < 1 || at + width > replies.size()) {
                calls[i].fail(shortReply(replies, at, width, 1));
            } else {
                Response first = replies.get(at);
                if (first != null && first.type() == ResponseType.ERROR) {
                    // this call failed in Redis, alone: as it would outside a batch, unless it only reached the wrong
                    // node
                    if (!sentAgainAlone(i, 1, first)) {
                        calls[i].fail(error(first));
                    }
                } else {
                    calls[i].succeed(new ReplySlice(replies, at, width, calls.length));
                }
            }
        } catch (RuntimeException e) {
            callerFailed(i, e);
        }
        return at + Math.max(width, 0);
    }

    /**
     * Answers the {@code n} calls from {@code i} sent as one entry, from the run's reply at {@code at}; returns where
     * the next entry starts.
     */
    private int answerRepeats(Response replies, int at, int i, int n, BatchFormat format) {
        ScriptCall<?> c = calls[i].call;
        long[][] each = new long[n][];
        int width;
        try {
            Response first = at < replies.size() ? replies.get(at) : null;
            if (first == null) {
                throw shortReply(replies, at, 1, n);
            }
            if (first.type() == ResponseType.ERROR) {
                if (sentAgainAlone(i, n, first)) {
                    return at + 1;
                }
                // the entry failed in Redis: each of its calls would have, alone
                Throwable error = error(first);
                for (int j = 0; j < n; j++) {
                    calls[i + j].fail(error);
                }
                return at + 1;
            }
            width = format.readRepeats(replies, at, n, c.tag, c.args, each);
            if (width < 1 || at + width > replies.size()) {
                throw shortReply(replies, at, width, n);
            }
        } catch (RuntimeException e) {
            // an entry that cannot be read fails its calls; what follows it cannot be found either
            for (int j = 0; j < n; j++) {
                callerFailed(i + j, e);
            }
            return replies.size();
        }
        for (int j = 0; j < n; j++) {
            try {
                calls[i + j].succeed(new ReplyValues(each[j], calls.length));
            } catch (RuntimeException e) {
                callerFailed(i + j, e);
            }
        }
        return at + width;
    }

    /**
     * Whether the {@code n} calls from {@code i} failed only because of what a run across slots is (see
     * {@link ClusterSlots}): this run reached a node that does not serve their slot (after a resharding or failover),
     * or the server refuses a script keys it was not given (a server that is not Redis, or a Redis that one day
     * would). Either is refused at their first key, before they touch anything: each goes again on its own, routed
     * by the cluster client; the slot map is read again, or runs across slots stop.
     */
    private boolean sentAgainAlone(int i, int n, Response error) {
        ClusterSlots slots = channel.owner.slots;
        if (slots == null || !acrossSlots) {
            return false;
        }
        String message = String.valueOf(error);
        if (message.contains("non local key")) {
            slots.refresh();
        } else if (message.contains("same slot") || message.contains("undeclared")) {
            slots.refuseRunsAcrossSlots(message);
        } else {
            return false;
        }
        for (int j = i; j < i + n; j++) {
            if (calls[j].done == 0) {
                channel.sendAlone(calls[j]);
            }
        }
        return true;
    }

    private IllegalStateException shortReply(Response replies, int at, int width, int n) {
        return new IllegalStateException("Script " + script.name() + " replied " + replies.size() + " values for a run of "
                + calls.length + " calls; the share of " + (n == 1 ? "this call" : "these " + n + " identical calls")
                + " starts at " + at + " and takes " + width);
    }

    private static Throwable error(Response first) {
        return first instanceof Throwable t ? t : new IllegalStateException(first.toString());
    }

    /**
     * A reply that cannot be read, or a subscriber that throws, must not keep the other callers of the run waiting: the
     * call fails unless it already had its answer.
     */
    private void callerFailed(int i, RuntimeException e) {
        LuaScriptExecutor.LOG.errorf(e, "A rate-limit caller failed handling its decision");
        try {
            calls[i].fail(e);
        } catch (RuntimeException again) {
            LuaScriptExecutor.LOG.errorf(again, "A rate-limit caller failed handling a failed decision");
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
