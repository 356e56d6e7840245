package dev.ratelimit.runtime.algorithm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import dev.ratelimit.deployment.lua.ComposedScripts;
import dev.ratelimit.runtime.algorithm.ReferenceModel.Limit;
import dev.ratelimit.runtime.backend.redis.KeyMemoryAndTtlTest;
import dev.ratelimit.runtime.backend.redis.RepeatedCalls;
import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;
import dev.ratelimit.test.redis.RespClient;

/**
 * Runs the composed scripts on a real Redis with the argument layout the extension sends (see {@code prelude.lua} and
 * {@code batch.lua}): one call per script run, or several calls in one batch run. Replies are the backends' layout,
 * {@code [all, then per policy: admitted, remaining, retry-after ms, reset ms]}.
 */
public final class ScriptRunner implements AutoCloseable {

    /** One call: its policies (distinct keys), costs, time ({@link #REDIS_TIME}: Redis's) and whether it only checks. */
    public record Call(Limit[] limits, String[] keys, long[] costs, long now, boolean dryRun, String lease,
            String kind) {
        Call(Limit[] limits, String[] keys, long[] costs, long now, boolean dryRun) {
            this(limits, keys, costs, now, dryRun, null, null);
        }

        public Call(Limit[] limits, String[] keys, long[] costs, long now, boolean dryRun, String lease) {
            this(limits, keys, costs, now, dryRun, lease, null);
        }

        /** A reservation's charge (mode R, see decide.lua). */
        static Call reservation(Limit[] limits, String[] keys, long[] costs, long now, String lease) {
            return new Call(limits, keys, costs, now, false, lease, "R");
        }

        /** A charge of a call that may wait, its bucket policies taking turns within {@code turn} µs (mode W). */
        static Call inTurn(Limit[] limits, String[] keys, long[] costs, long now, long turn) {
            return new Call(limits, keys, costs, now, false, null, "W" + turn);
        }

        /** The settlement of a reservation charged at {@code at}: {@code refunds} per policy (mode S<at>). */
        static Call settlement(Limit[] limits, String[] keys, long[] refunds, long at, long now) {
            return new Call(limits, keys, refunds, now, false, null, "S" + at);
        }

        /** The give-back of a leased slice charged at {@code at}: {@code unused} per policy (mode G<at>). */
        static Call giveBack(Limit[] limits, String[] keys, long[] unused, long at, long now) {
            return new Call(limits, keys, unused, now, false, null, "G" + at);
        }

        /** The mode argument: a charge of a call holding concurrency slots names its lease. */
        String mode() {
            if (kind != null) {
                return kind.equals("R") && lease != null ? kind + lease : kind;
            }
            return dryRun ? "1" : lease == null ? "0" : "0" + lease;
        }
    }

    /** A call's time read by the script from Redis {@code TIME}, as the extension sends it. */
    public static final long REDIS_TIME = -1;

    private final Supplier<RespClient> connect;
    /** Per script name, what a call names: its SHA, or with {@link #functions} its function. */
    private final Map<String, String> names = new HashMap<>();
    /** Calls go as {@code FCALL}s of the scripts' function library, as the extension sends them where Redis takes it. */
    private final boolean functions;
    private RespClient redis;

    /** Runs every call as a script ({@code EVALSHA}). */
    ScriptRunner(Supplier<RespClient> connect) {
        this(connect, false);
    }

    /** Runs every call as a script, or with {@code functions} as a call of the scripts' function library. */
    ScriptRunner(Supplier<RespClient> connect, boolean functions) {
        this.connect = connect;
        this.functions = functions;
        this.redis = connect.get();
        Map<String, LuaScript> scripts = new HashMap<>();
        ComposedScripts.all().forEach((name, body) -> {
            String sent = name.equals(LuaScriptRegistry.RELEASE) ? longLivedTombstones(body) : longLived(body);
            String sha = redis.callString("SCRIPT", "LOAD", sent);
            scripts.put(name, new LuaScript(name, sent, sha));
            names.put(name, sha);
        });
        if (functions) {
            LuaScriptRegistry registry = new LuaScriptRegistry(scripts);
            redis.callString("FUNCTION", "LOAD", "REPLACE", registry.library().code());
            for (LuaScript s : registry.all()) {
                names.put(s.name(), s.function());
            }
        }
    }

    /** The command a call is sent with. */
    private String command() {
        return functions ? "FCALL" : "EVALSHA";
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
        args.add(command());
        args.add(name(LuaScriptRegistry.DECIDE, List.of(c)));
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
            args.add(l.flags());
            args.add(Long.toString(c.costs()[i]));
        }
        return longs((List<?>) run(args), 0, width(c));
    }

    /** A call's reply: 1 + 4n values, 2n more when one of its policies has overrides (see decide.lua). */
    static int width(Call c) {
        int n = c.limits().length;
        for (Limit l : c.limits()) {
            if (l.overrides()) {
                return 1 + 6 * n;
            }
        }
        return 1 + 4 * n;
    }

    /** Frees the slots {@code lease} holds in the concurrency policies among {@code limits}; the members removed. */
    long release(Limit[] limits, String[] keys, long[] costs, String lease, long nowMicros) {
        List<String> args = new ArrayList<>();
        List<String> held = new ArrayList<>();
        List<String> heldCosts = new ArrayList<>();
        for (int i = 0; i < limits.length; i++) {
            if (limits[i].algorithm().equals("concurrency")) {
                held.add(keys[i]);
                heldCosts.add(Long.toString(costs[i]));
                heldCosts.add(Long.toString(limits[i].windowMicros()));
            }
        }
        args.add(command());
        args.add(names.get(LuaScriptRegistry.RELEASE));
        args.add(Integer.toString(held.size()));
        args.addAll(held);
        args.add(lease);
        args.add(Long.toString(nowMicros));
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
    public static String longLived(String body) {
        String ttl = "local ttl_ms = ms\n";
        if (!body.contains(ttl)) {
            throw new IllegalStateException("the prelude no longer defines ttl_ms as expected; update ScriptRunner");
        }
        return body.replace(ttl, "local ttl_ms = function() return 86400000 end\n");
    }

    /**
     * The leases in flight on a concurrency key at {@code nowMicros}, by lease: the units each holds (a lease of
     * several units is stored as one member per unit, {@code <lease>:<i>}). Tombstones (negative scores) are not.
     */
    java.util.Map<String, Long> inFlight(String key, long nowMicros) {
        @SuppressWarnings("unchecked")
        List<Object> members = (List<Object>) run(List.of("ZRANGEBYSCORE", key, "(" + nowMicros, "+inf"));
        java.util.Map<String, Long> held = new java.util.TreeMap<>();
        for (Object m : members) {
            String name = m instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : m.toString();
            int colon = name.indexOf(':');
            held.merge(colon < 0 ? name : name.substring(0, colon), 1L, Long::sum);
        }
        return held;
    }

    /** The release script with every tombstone's key given a day to live, for the reason {@link #longLived} gives. */
    public static String longLivedTombstones(String body) {
        String ttl = "local function tombstone_ttl_ms(window)\n  return math.ceil(window / 1000)\n";
        if (!body.contains(ttl)) {
            throw new IllegalStateException("release.lua no longer defines tombstone_ttl_ms as expected; update ScriptRunner");
        }
        return body.replace(ttl, "local function tombstone_ttl_ms(window)\n  return 86400000\n");
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
    public static final AtomicLong COMPACT_RUNS = new AtomicLong();

    /** Calls of compact runs identical to the call before them (a burst on one key, sent once and decided together). */
    public static final AtomicLong REPEATED_CALLS = new AtomicLong();

    /**
     * Several calls in one batch run, decided one after the other; one reply per call. A run whose calls each have one
     * policy, one time and a plain charge goes in the compact form the extension sends such runs in (one argument per
     * call, identical consecutive calls sent once as one entry and their replies read as the extension reads them),
     * any other in the full form.
     */
    List<long[]> batch(List<Call> calls) {
        Map<Limit, Integer> index = new LinkedHashMap<>();
        for (Call c : calls) {
            for (Limit l : c.limits()) {
                index.computeIfAbsent(l, x -> index.size() + 1);
            }
        }
        boolean compact = compact(calls);
        // per entry of the run, the number of calls it stands for
        List<Integer> repeats = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            if (compact && i > 0 && same(calls.get(i - 1), calls.get(i))) {
                repeats.set(repeats.size() - 1, repeats.get(repeats.size() - 1) + 1);
                REPEATED_CALLS.incrementAndGet();
            } else {
                repeats.add(1);
            }
        }
        List<String> keys = new ArrayList<>();
        List<String> perEntry = new ArrayList<>();
        for (int e = 0, i = 0; e < repeats.size(); i += repeats.get(e), e++) {
            Call c = calls.get(i);
            keys.addAll(List.of(c.keys()));
            if (compact) {
                perEntry.add(Long.toString(index.get(c.limits()[0]) + index.size() * (c.costs()[0] - 1)));
                continue;
            }
            perEntry.add(Integer.toString(c.limits().length));
            perEntry.add(time(c));
            perEntry.add(c.mode());
            for (int p = 0; p < c.limits().length; p++) {
                perEntry.add(index.get(c.limits()[p]).toString());
                perEntry.add(Long.toString(c.costs()[p]));
            }
        }
        List<String> args = new ArrayList<>();
        args.add(command());
        args.add(name(LuaScriptRegistry.BATCH, calls));
        args.add(Integer.toString(keys.size()));
        args.addAll(keys);
        args.add(Integer.toString(repeats.size()));
        args.add(Integer.toString(index.size()));
        for (Limit l : index.keySet()) {
            args.add(l.algorithm());
            args.add(Long.toString(l.limit()));
            args.add(Long.toString(l.windowMicros()));
            args.add(Long.toString(l.burst()));
            args.add(l.flags());
        }
        if (compact) {
            COMPACT_RUNS.incrementAndGet();
            args.add("S" + time(calls.get(0)));
        }
        args.addAll(perEntry);
        for (int e = 0; e < repeats.size(); e++) {
            if (repeats.get(e) > 1) {
                args.add(Integer.toString(e + 1));
                args.add(Integer.toString(repeats.get(e)));
            }
        }
        List<?> reply = (List<?>) run(args);
        List<long[]> out = new ArrayList<>();
        int o = 0;
        for (int e = 0, i = 0; e < repeats.size(); i += repeats.get(e), e++) {
            Call c = calls.get(i);
            int n = repeats.get(e);
            if (n == 1) {
                int width = width(c);
                out.add(longs(reply, o, width));
                o += width;
            } else {
                long[][] each = new long[n][];
                o += RepeatedCalls.read(at -> longs(reply, at, 1)[0], o, n, c.costs()[0], each);
                out.addAll(List.of(each));
            }
        }
        if (o != reply.size()) {
            throw new IllegalStateException("a run of " + calls.size() + " calls replied " + reply.size()
                    + " values, its calls took " + o + ": " + reply);
        }
        return out;
    }

    /** Sets (or with null, removes) the override of {@code key}, as the extension stores it (without an expiry in Redis:
     * the scripts compare its instant with their own clock, which the simulation sets). */
    void override(String key, dev.ratelimit.runtime.backend.KeyOverride o) {
        String k = key + dev.ratelimit.runtime.backend.RedisKeys.OVERRIDE;
        run(o == null ? List.of("DEL", k) : List.of("SET", k, o.stored()));
    }

    /** Whether two calls of a compact run are the same call (the extension then sends them once). */
    private static boolean same(Call a, Call b) {
        // as the extension: never a policy holding leases, nor one locking out (a denial changes its key)
        return a.limits()[0].equals(b.limits()[0]) && !a.limits()[0].algorithm().equals("concurrency")
                && a.limits()[0].blockMicros() == 0 && a.keys()[0].equals(b.keys()[0]) && a.costs()[0] == b.costs()[0];
    }

    private static boolean compact(List<Call> calls) {
        for (Call c : calls) {
            // as the extension: never a policy with overrides (its calls reply more)
            if (c.limits().length != 1 || c.dryRun() || c.lease() != null || c.kind() != null
                    || c.now() != calls.get(0).now() || c.limits()[0].overrides()) {
                return false;
            }
        }
        return true;
    }

    private static String time(Call c) {
        return c.now() == REDIS_TIME ? "" : Long.toString(c.now());
    }

    /** The script for these calls: the one-algorithm script when they all use one algorithm (as its SHA or function). */
    private String name(String base, List<Call> calls) {
        String alg = null;
        for (Call c : calls) {
            for (Limit l : c.limits()) {
                if (alg == null) {
                    alg = l.algorithm();
                } else if (!alg.equals(l.algorithm())) {
                    return names.get(base);
                }
            }
        }
        return names.get(base + "/" + alg);
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
