package dev.ratelimit.runtime.backend.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import dev.ratelimit.runtime.backend.redis.transport.BatchFormat;
import dev.ratelimit.runtime.policy.Policy;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * A run of the batch script names each of its policies once (their five fixed values, then per call and policy
 * the policy's place in that list and the cost) instead of repeating them for every decision: Redis reads and
 * converts fewer arguments per decision (see {@code batch.lua}). The tags are the calls' policies. A run whose
 * policies all use one algorithm goes to that algorithm's batch script.
 */
final class PolicyTable implements BatchFormat {

    /** The arguments every decision of a policy sends alike: algorithm, limit, window, burst, shadow. */
    static final int FIXED = 5;

    private final Map<Algorithm, LuaScript> batchByAlgorithm;

    PolicyTable(Map<Algorithm, LuaScript> batchByAlgorithm) {
        this.batchByAlgorithm = batchByAlgorithm;
    }

    @Override
    public LuaScript script(LuaScript all, Object[] tags) {
        Algorithm shared = null;
        for (Object tag : tags) {
            for (Policy p : (Policy[]) tag) {
                if (shared == null) {
                    shared = p.algorithm();
                } else if (p.algorithm() != shared) {
                    return all;
                }
            }
        }
        return shared == null ? all : batchByAlgorithm.get(shared);
    }

    @Override
    public void write(Request request, int[] keyCounts, String[][] args, Object[] tags) {
        List<Policy> named = new ArrayList<>(4);
        // where each named policy's fixed values are: the first call naming it, at that policy's place
        List<String[]> namedIn = new ArrayList<>(4);
        List<Integer> namedAt = new ArrayList<>(4);
        int[][] index = new int[args.length][];
        for (int i = 0; i < args.length; i++) {
            Policy[] ps = (Policy[]) tags[i];
            index[i] = new int[ps.length];
            for (int j = 0; j < ps.length; j++) {
                int at = 0;
                while (at < named.size() && named.get(at) != ps[j]) {
                    at++;
                }
                if (at == named.size()) {
                    named.add(ps[j]);
                    namedIn.add(args[i]);
                    namedAt.add(2 + j * (FIXED + 1));
                }
                index[i][j] = at + 1;
            }
        }
        request.arg(args.length);
        request.arg(named.size());
        for (int at = 0; at < named.size(); at++) {
            String[] a = namedIn.get(at);
            int b = namedAt.get(at);
            for (int f = 0; f < FIXED; f++) {
                request.arg(a[b + f]);
            }
        }
        if (simple(args, index) && !overrides(named)) {
            // one argument per call: the policy's index plus the number of policies times (cost - 1)
            request.arg(args[0][0].isEmpty() ? SIMPLE : SIMPLE + args[0][0]);
            long policies = named.size();
            for (int i = 0; i < args.length; i++) {
                String cost = args[i][2 + FIXED];
                request.arg(cost == SMALL[1] ? index[i][0] : index[i][0] + policies * (Long.parseLong(cost) - 1));
            }
            return;
        }
        for (int i = 0; i < args.length; i++) {
            request.arg(keyCounts[i]);
            request.arg(args[i][0]); // time
            request.arg(args[i][1]); // mode
            for (int j = 0; j < index[i].length; j++) {
                request.arg(index[i][j]);
                request.arg(args[i][2 + j * (FIXED + 1) + FIXED]); // cost
            }
        }
    }

    /**
     * A compact run (see {@link #simple}) sends identical consecutive calls once: a burst on a hot key costs Redis
     * one key and one argument to convert and a reply of a few integers, and this client as little to write and
     * parse (see {@link RepeatedCalls}). Every compact algorithm's admissions at one instant are linear; the
     * concurrency algorithm's charges hold leases, a denial by a policy with a lock-out changes its key, and a policy
     * with overrides replies more, so none of them comes here.
     */
    @Override
    public boolean repeatable(String[] args, Object tag) {
        Policy[] ps = (Policy[]) tag;
        return ps.length == 1 && !ps[0].algorithm().holdsLeases() && !ps[0].locksOut() && !ps[0].overrides()
                && CHARGE.equals(args[1]);
    }

    /** A call naming a policy with overrides is also replied the values each of its policies applied. */
    @Override
    public int replyWidth(int keyCount, Object tag) {
        return Policy.anyOverrides((Policy[]) tag) ? 1 + 6 * keyCount : 1 + 4 * keyCount;
    }

    /** Every call {@link #repeatable}, at one time (a compact run has one). */
    @Override
    public boolean repeatsAllowed(String[][] args, Object[] tags) {
        String time = args[0][0];
        for (int i = 0; i < args.length; i++) {
            if (!args[i][0].equals(time)) {
                return false;
            }
        }
        return BatchFormat.super.repeatsAllowed(args, tags);
    }

    @Override
    public int readRepeats(Response run, int at, int calls, Object tag, String[] args, long[][] replies) {
        String cost = args[2 + FIXED];
        return RepeatedCalls.read(i -> run.get(i).toLong(), at, calls, cost == SMALL[1] ? 1 : Long.parseLong(cost),
                replies);
    }

    /** Whether one of the run's policies has overrides: its calls reply more than the compact form reads. */
    private static boolean overrides(List<Policy> named) {
        for (int i = 0; i < named.size(); i++) {
            if (named.get(i).overrides()) {
                return true;
            }
        }
        return false;
    }

    /** Marks a run whose calls are all simple (see {@code batch.lua}). */
    private static final String SIMPLE = "S";

    /** Whether every call has one policy, the same time and a plain charge (no lease): the run's compact form. */
    private static boolean simple(String[][] args, int[][] index) {
        String time = args[0][0];
        for (int i = 0; i < args.length; i++) {
            if (index[i].length != 1 || !args[i][0].equals(time) || !CHARGE.equals(args[i][1])) {
                return false;
            }
        }
        return true;
    }

    /** Small costs as strings, so the common cost of 1 formats nothing. */
    private static final String[] SMALL = { "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10" };

    /** The mode of a charge (ARGV[2]; see {@code decide.lua}). */
    static final String CHARGE = "0";

    /** {@code cost} as a script argument: small costs are formatted once, so the common cost of 1 formats nothing. */
    static String cost(long cost) {
        // negative in a settlement: the units it charges more
        return cost >= 0 && cost < SMALL.length ? SMALL[(int) cost] : Long.toString(cost);
    }
}
