package dev.ratelimit.runtime.backend.redis.transport;

import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/** How the calls of one run become the batch script's arguments (its keys are every call's keys, in order). */
public interface BatchFormat {
    /**
     * Appends the arguments of a run to {@code request}: per call, its number of keys, its own arguments and the
     * tag its caller gave.
     */
    void write(Request request, int[] keyCounts, String[][] args, Object[] tags);

    /**
     * The script a run of these calls uses: by default the batch script they were made with; a format may pick a
     * narrower one that decides every call of this run (it must read the same arguments).
     */
    default LuaScript script(LuaScript batch, Object[] tags) {
        return batch;
    }

    /**
     * How many elements of a run's reply are a call's. By default the layout of the decide scripts: whether every
     * policy admitted, then four values per key.
     */
    default int replyWidth(int keyCount, Object tag) {
        return 1 + 4 * keyCount;
    }

    /**
     * Whether a call with these arguments and tag may stand with identical calls next to it (see
     * {@link #repeatsAllowed}) as one entry. Such calls count once against {@code maxBatch}: a burst on one key
     * costs a run about what one of its calls does. By default no call may.
     */
    default boolean repeatable(String[] args, Object tag) {
        return false;
    }

    /**
     * Whether consecutive identical calls of this run (equal keys and arguments, and tags that are one object or
     * arrays of the same objects) may go as one entry: then
     * {@link #write} gets one call per entry, {@link #writeRepeats} says which entries stand for several, and
     * {@link #readRepeats} reads such an entry's reply. By default, when every call is {@link #repeatable}.
     */
    default boolean repeatsAllowed(String[][] args, Object[] tags) {
        for (int i = 0; i < args.length; i++) {
            if (!repeatable(args[i], tags[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * Appends, after what {@link #write} wrote, what the script needs to know of the entries standing for several
     * calls: {@code repeats[e]} is the number of calls entry {@code e} stands for (1 for most). By default, pairs
     * (entry, from 1; its number of calls) for the entries of more than one call.
     */
    default void writeRepeats(Request request, int[] repeats) {
        for (int e = 0; e < repeats.length; e++) {
            if (repeats[e] > 1) {
                request.arg(e + 1);
                request.arg(repeats[e]);
            }
        }
    }

    /**
     * Reads the reply of an entry standing for {@code calls} calls, which starts at element {@code at} of the run's
     * reply and does not start with an error: fills {@code replies} with each call's, the integers the script
     * deciding the call alone would have replied, and returns how many elements the entry took.
     */
    default int readRepeats(Response run, int at, int calls, Object tag, String[] args, long[][] replies) {
        throw new UnsupportedOperationException("this format sends every call on its own");
    }
}
