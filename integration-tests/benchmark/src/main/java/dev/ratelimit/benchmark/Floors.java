package dev.ratelimit.benchmark;

import java.util.function.Function;

import dev.ratelimit.runtime.backend.redis.RepeatedCalls;
import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import dev.ratelimit.runtime.backend.redis.transport.BatchFormat;
import dev.ratelimit.runtime.backend.redis.transport.LuaScriptExecutor;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * The floors: the least a limiter deciding in Redis can do, sent on the same executor, Redis client
 * and closed loop as ours, so that what ours spends beyond them is its own. Scripts in
 * {@code src/main/resources/floors/}.
 * <ul>
 * <li>{@value #BATCH_GET_SET}: per decision one read and one write of its key, batched as ours are (one
 * {@code TIME} per run, a key read once and written once per run however many of its calls touch it,
 * a reply of 1 + 4 integers per call, identical consecutive calls sent once and replied once as ours are);
 * <li>{@value #ONE_GET_SET}: the same work, one call per decision ({@code TIME}, {@code GET}, {@code SET … PX});
 * <li>{@value #BATCH_RETURN_ONE}: batched calls that touch no key and get one integer each (identical
 * consecutive calls sent once, as ours are): the transport's own limit.
 * </ul>
 */
final class Floors {

    static final String BATCH_GET_SET = "floor: batch GET/SET";
    static final String ONE_GET_SET = "floor: one GET/SET";
    static final String BATCH_RETURN_ONE = "floor: batch return 1";

    /** The TTL the floors give their keys: the window of the benchmark's policies (1 s). */
    static final String TTL_MS = "1000";
    private static final String[] GET_SET_ARGS = { TTL_MS, "1" };
    private static final String[] NO_ARGS = new String[0];

    /** Reads a reply as ours is read (every value, as a long), and says whether it admitted. */
    private static final Function<Response, Boolean> ADMITTED = r -> RepeatedCalls.values(r)[0] == 1;

    /**
     * A run of the GET/SET floor: the number of entries, the TTL, then each entry's cost; identical consecutive calls
     * go as one entry, as ours do (see {@link RepeatedCalls}), then pairs (entry, number of calls).
     */
    private static final BatchFormat GET_SET_RUN = new BatchFormat() {
        @Override
        public void write(Request request, int[] keyCounts, String[][] args, Object[] tags) {
            request.arg(args.length);
            request.arg(TTL_MS);
            for (String[] a : args) {
                request.arg(a[1]);
            }
        }

        @Override
        public boolean repeatable(String[] args, Object tag) {
            return true;
        }

        @Override
        public int readRepeats(Response run, int at, int calls, Object tag, String[] args, long[][] replies) {
            return RepeatedCalls.read(i -> run.get(i).toLong(), at, calls, Long.parseLong(args[1]), replies);
        }
    };

    /**
     * A run of {@code return 1}: the number of entries; one integer each in the reply. Identical consecutive calls go
     * as one entry, as ours do, replied with their number (then pairs (entry, number of calls) follow the count).
     */
    private static final BatchFormat RETURN_ONE_RUN = new BatchFormat() {
        @Override
        public void write(Request request, int[] keyCounts, String[][] args, Object[] tags) {
            request.arg(args.length);
        }

        @Override
        public int replyWidth(int keyCount, Object tag) {
            return 1;
        }

        @Override
        public boolean repeatable(String[] args, Object tag) {
            return true;
        }

        @Override
        public int readRepeats(Response run, int at, int calls, Object tag, String[] args, long[][] replies) {
            for (int j = 0; j < calls; j++) {
                replies[j] = new long[] { 1 };
            }
            return 1;
        }
    };

    private final LuaScriptExecutor executor;
    private final LuaScript getSetOne = script("get-set-one.lua");
    private final LuaScript getSetBatch = script("get-set-batch.lua");
    private final LuaScript returnOne;
    private final LuaScript returnOneBatch = script("return-one-batch.lua");

    /**
     * @param executor an executor shaped as the limiter's ({@code max-batch}, connections)
     * @param returnOne the ceiling's {@code return 1}, what a call of the batched {@code return 1} sent alone runs
     */
    Floors(LuaScriptExecutor executor, LuaScript returnOne) {
        this.executor = executor;
        this.returnOne = returnOne;
    }

    Operation batchGetSet(String[] identities) {
        String[][] keys = keys(identities);
        return (key, done) -> executor.execute(getSetOne, getSetBatch, GET_SET_RUN, null, keys[key], GET_SET_ARGS, ADMITTED)
                .subscribe().with(done::decided, done::failed);
    }

    Operation oneGetSet(String[] identities) {
        String[][] keys = keys(identities);
        return (key, done) -> executor.execute(getSetOne, keys[key], GET_SET_ARGS, ADMITTED).subscribe()
                .with(done::decided, done::failed);
    }

    Operation batchReturnOne(String[] identities) {
        String[][] keys = keys(identities);
        return (key, done) -> executor.execute(returnOne, returnOneBatch, RETURN_ONE_RUN, null, keys[key], NO_ARGS,
                Function.identity()).subscribe().with(r -> done.ok(), done::failed);
    }

    private static String[][] keys(String[] identities) {
        String[][] keys = new String[identities.length][];
        for (int i = 0; i < identities.length; i++) {
            keys[i] = new String[] { "floor:{" + identities[i] + "}" };
        }
        return keys;
    }

    static LuaScript script(String file) {
        String body = RedisCost.resource("/floors/" + file);
        return new LuaScript("floor/" + file, body, LuaScript.sha1(body));
    }
}
