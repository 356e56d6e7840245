package dev.ratelimit.deployment.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import dev.ratelimit.deployment.engine.ReferenceModel.Limit;
import dev.ratelimit.deployment.lua.ComposedScripts;
import dev.ratelimit.runtime.redis.LuaScriptRegistry;
import dev.ratelimit.test.redis.RespClient;

/**
 * Runs the composed scripts on a real Redis with the argument layout the extension sends (see {@code prelude.lua} and
 * {@code batch.lua}): one call per script run, or several calls in one batch run. Replies are the backends' layout,
 * {@code [all, then per policy: admitted, remaining, retry-after ms, reset ms]}.
 */
final class ScriptRunner implements AutoCloseable {

    /** One call: its policies (distinct keys), costs, time ({@link #REDIS_TIME}: Redis's) and whether it only checks. */
    record Call(Limit[] limits, String[] keys, long[] costs, long now, boolean dryRun, String lease) {
        Call(Limit[] limits, String[] keys, long[] costs, long now, boolean dryRun) {
            this(limits, keys, costs, now, dryRun, null);
        }

        /** The mode argument: a charge of a call holding concurrency slots names its lease. */
        String mode() {
            return dryRun ? "1" : lease == null ? "0" : "0" + lease;
        }
    }

    /** A call's time read by the script from Redis {@code TIME}, as the extension sends it. */
    static final long REDIS_TIME = -1;

    private final Supplier<RespClient> connect;
    private final Map<String, String> shas = new HashMap<>();
    private RespClient redis;

    ScriptRunner(Supplier<RespClient> connect) {
        this.connect = connect;
        this.redis = connect.get();
        ComposedScripts.all().forEach((name, body) -> shas.put(name, redis.callString("SCRIPT", "LOAD",
                name.equals(LuaScriptRegistry.RELEASE) ? body : longLived(body))));
    }

    RespClient redis() {
        return redis;
    }

    @Override
    public void close() {
        redis.close();
    }

    /** One call in a script run of its own. */
    long[] single(Call c) {
        int n = c.limits().length;
        List<String> args = new ArrayList<>();
        args.add("EVALSHA");
        args.add(sha(LuaScriptRegistry.DECIDE, List.of(c)));
        args.add(Integer.toString(n));
        args.addAll(List.of(c.keys()));
        args.add(time(c));
        args.add(c.mode());
        for (int i = 0; i < n; i++) {
            Limit l = c.limits()[i];
            args.add(l.algorithm());
            args.add(Long.toString(l.limit()));
            args.add(Long.toString(l.windowMicros()));
            args.add(Long.toString(l.burst()));
            args.add(l.shadow() ? "1" : "0");
            args.add(Long.toString(c.costs()[i]));
        }
        return longs((List<?>) run(args), 0, 1 + 4 * n);
    }

    /** Frees the slots {@code lease} holds in the concurrency policies among {@code limits}; the members removed. */
    long release(Limit[] limits, String[] keys, long[] costs, String lease) {
        List<String> args = new ArrayList<>();
        List<String> held = new ArrayList<>();
        List<String> heldCosts = new ArrayList<>();
        for (int i = 0; i < limits.length; i++) {
            if (limits[i].algorithm().equals("concurrency")) {
                held.add(keys[i]);
                heldCosts.add(Long.toString(costs[i]));
            }
        }
        args.add("EVALSHA");
        args.add(shas.get(LuaScriptRegistry.RELEASE));
        args.add(Integer.toString(held.size()));
        args.addAll(held);
        args.add(lease);
        args.addAll(heldCosts);
        return (Long) run(args);
    }

    /**
     * The script with every key given a day to live. Calls with explicit times simulate more time than they take,
     * while Redis expires keys on its own clock: a key given 1 ms to live would vanish between two calls of the
     * simulation (or even before a PERSIST sent right after the script, on a loaded machine). Only the TTL changes;
     * the in-process backend expires state on the explicit clock, so expiry is still compared with the model there,
     * and KeyMemoryAndTtlTest checks the real TTLs.
     */
    static String longLived(String body) {
        String ttl = "local ttl_ms = ms\n";
        if (!body.contains(ttl)) {
            throw new IllegalStateException("the prelude no longer defines ttl_ms as expected; update ScriptRunner");
        }
        return body.replace(ttl, "local ttl_ms = function() return 86400000 end\n");
    }

    private Object run(List<String> script) {
        try {
            return redis.call(script.toArray(String[]::new));
        } catch (RuntimeException e) {
            // an error inside a reply leaves the connection mid-reply: start afresh
            redis.close();
            redis = connect.get();
            throw e;
        }
    }

    /** Batch runs sent in the compact form (see {@link #batch}). */
    static final AtomicLong COMPACT_RUNS = new AtomicLong();

    /** Calls of compact runs identical to the call before them (a burst on one key, decided together). */
    static final AtomicLong REPEATED_CALLS = new AtomicLong();

    /**
     * Several calls in one batch run, decided one after the other; one reply per call. A run whose calls each have one
     * policy, one time and a plain charge goes in the compact form the extension sends such runs in (one argument per
     * call), any other in the full form.
     */
    List<long[]> batch(List<Call> calls) {
        Map<Limit, Integer> index = new LinkedHashMap<>();
        List<String> keys = new ArrayList<>();
        List<String> perCall = new ArrayList<>();
        for (Call c : calls) {
            perCall.add(Integer.toString(c.limits().length));
            perCall.add(time(c));
            perCall.add(c.mode());
            for (int i = 0; i < c.limits().length; i++) {
                Integer idx = index.computeIfAbsent(c.limits()[i], l -> index.size() + 1);
                perCall.add(idx.toString());
                perCall.add(Long.toString(c.costs()[i]));
                keys.add(c.keys()[i]);
            }
        }
        List<String> args = new ArrayList<>();
        args.add("EVALSHA");
        args.add(sha(LuaScriptRegistry.BATCH, calls));
        args.add(Integer.toString(keys.size()));
        args.addAll(keys);
        args.add(Integer.toString(calls.size()));
        args.add(Integer.toString(index.size()));
        for (Limit l : index.keySet()) {
            args.add(l.algorithm());
            args.add(Long.toString(l.limit()));
            args.add(Long.toString(l.windowMicros()));
            args.add(Long.toString(l.burst()));
            args.add(l.shadow() ? "1" : "0");
        }
        if (compact(calls)) {
            COMPACT_RUNS.incrementAndGet();
            args.add("S" + time(calls.get(0)));
            String previous = null;
            for (Call c : calls) {
                String arg = Long.toString(index.get(c.limits()[0]) + index.size() * (c.costs()[0] - 1));
                if (arg.equals(previous)) {
                    REPEATED_CALLS.incrementAndGet();
                }
                args.add(arg);
                previous = arg;
            }
        } else {
            args.addAll(perCall);
        }
        List<?> reply = (List<?>) run(args);
        List<long[]> out = new ArrayList<>();
        int o = 0;
        for (Call c : calls) {
            int width = 1 + 4 * c.limits().length;
            out.add(longs(reply, o, width));
            o += width;
        }
        return out;
    }

    private static boolean compact(List<Call> calls) {
        for (Call c : calls) {
            if (c.limits().length != 1 || c.dryRun() || c.lease() != null || c.now() != calls.get(0).now()) {
                return false;
            }
        }
        return true;
    }

    private static String time(Call c) {
        return c.now() == REDIS_TIME ? "" : Long.toString(c.now());
    }

    /** The script for these calls: the one-algorithm script when they all use one algorithm. */
    private String sha(String base, List<Call> calls) {
        String alg = null;
        for (Call c : calls) {
            for (Limit l : c.limits()) {
                if (alg == null) {
                    alg = l.algorithm();
                } else if (!alg.equals(l.algorithm())) {
                    return shas.get(base);
                }
            }
        }
        return shas.get(base + "/" + alg);
    }

    private static long[] longs(List<?> reply, int from, int width) {
        long[] r = new long[width];
        for (int i = 0; i < width; i++) {
            Object v = reply.get(from + i);
            if (!(v instanceof Long)) {
                throw new IllegalStateException("reply element " + (from + i) + " is " + v + " in " + reply);
            }
            r[i] = (Long) v;
        }
        return r;
    }
}
