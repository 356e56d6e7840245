package dev.ratelimit.runtime.backend.redis;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.backend.BackendReply;
import dev.ratelimit.runtime.backend.KeyOverride;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;
import dev.ratelimit.runtime.backend.redis.transport.ArrayReply;
import dev.ratelimit.runtime.backend.redis.transport.BatchFormat;
import dev.ratelimit.runtime.backend.redis.transport.LuaScriptExecutor;
import dev.ratelimit.runtime.policy.Policy;
import io.smallrye.mutiny.Uni;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;

/**
 * Decides in Redis with the recorded scripts.
 * <p>
 * On a standalone or sentinel Redis every policy of a request is decided in one script call. On a
 * Redis Cluster a script may only touch keys of one slot; keys of one identity share a slot (the
 * identity is the hash tag), so policies of one identity are still decided in one call. Policies of
 * different identities (say one per user and one global) are first checked without charging, then
 * charged group by group: no policy ever admits more than its limit, but if a concurrent request
 * takes the last unit in between, the groups charged before the denying one stay charged.
 * <p>
 * On a standalone or sentinel Redis, calls that arrive while Redis is busy are decided several per
 * script run (the {@code decide-batch/<algorithm>} script when they all use one algorithm, else
 * {@code decide-batch}; see {@link LuaScriptExecutor}); each is still decided all-or-nothing, exactly
 * as alone.
 */
public class RedisBackend implements RateLimitBackend {

    private final LuaScriptExecutor executor;
    private final boolean cluster;
    private final Map<Algorithm, LuaScript> byAlgorithm = new EnumMap<>(Algorithm.class);
    private final LuaScript mixed;
    private final LuaScript release;
    /** The batch script (on a cluster, a run holds the calls of one slot: see the executor). */
    private final LuaScript batch;
    private final Map<Algorithm, LuaScript> batchByAlgorithm = new EnumMap<>(Algorithm.class);
    private final BatchFormat policyTable;
    private final Map<String, Encoded> encodedPolicies = new ConcurrentHashMap<>();
    /** Slots of {@link #recentlyEncoded}. */
    private static final int RECENT = 16;
    /** The policies encoded lately, read without a map lookup (any thread: immutable records, published whole). */
    private final Encoded[] recentlyEncoded = new Encoded[RECENT];

    public RedisBackend(LuaScriptExecutor executor, LuaScriptRegistry scripts, boolean cluster) {
        this.executor = executor;
        this.cluster = cluster;
        // looked up once: a decision should not build a map key to find its script
        for (Algorithm a : Algorithm.values()) {
            byAlgorithm.put(a, scripts.forAlgorithm(a));
            batchByAlgorithm.put(a, scripts.batchForAlgorithm(a));
        }
        this.mixed = scripts.get(LuaScriptRegistry.DECIDE);
        this.release = scripts.get(LuaScriptRegistry.RELEASE);
        this.batch = scripts.get(LuaScriptRegistry.BATCH);
        this.policyTable = new PolicyTable(batchByAlgorithm);
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public Uni<BackendReply> decide(Policy[] policies, String[] keys, long[] costs, long nowMicros, boolean dryRun,
            String lease) {
        // a charge taking concurrency slots names them after the lease
        String charge = lease == null ? CHARGE : CHARGE + lease;
        if (cluster && policies.length > 1) {
            Map<String, List<Integer>> groups = groupsBySlot(keys);
            if (groups.size() > 1) {
                return decideAcrossSlots(policies, keys, costs, nowMicros, dryRun, lease, groups);
            }
        }
        return call(policies, keys, costs, nowMicros, dryRun ? DRY_RUN : charge);
    }

    @Override
    public Uni<BackendReply> decideInTurn(Policy[] policies, String[] keys, long[] costs, long nowMicros,
            long turnMicros) {
        if (cluster && policies.length > 1 && groupsBySlot(keys).size() > 1) {
            // checked, then charged slot by slot: a turn taken in one slot would stand for a call another denies
            return decide(policies, keys, costs, nowMicros, false, null);
        }
        return call(policies, keys, costs, nowMicros, TURN + turnMicros);
    }

    @Override
    public Uni<BackendReply> reserve(Policy[] policies, String[] keys, long[] costs, long nowMicros, String lease) {
        String charge = lease == null ? RESERVE : RESERVE + lease;
        if (cluster && policies.length > 1) {
            Map<String, List<Integer>> groups = groupsBySlot(keys);
            if (groups.size() > 1) {
                return decideAcrossSlots(policies, keys, costs, nowMicros, false, lease, groups, charge);
            }
        }
        return call(policies, keys, costs, nowMicros, charge);
    }

    /**
     * One settlement call per instant of charge (and per slot on a cluster: a reservation across slots was charged
     * slot by slot), each sent on its own, never in a batch run: a refund changes keys a run may have read.
     */
    @Override
    public Uni<BackendReply> settle(Policy[] policies, String[] keys, long[] refunds, long[] chargedAt,
            long nowMicros) {
        return settle(policies, keys, refunds, chargedAt, nowMicros, SETTLE);
    }

    /** As {@link #settle}, in mode {@code G}: a bucket gets back less the time passed since the charge. */
    @Override
    public Uni<BackendReply> giveBack(Policy[] policies, String[] keys, long[] unused, long[] chargedAt,
            long nowMicros) {
        return settle(policies, keys, unused, chargedAt, nowMicros, GIVE_BACK);
    }

    private Uni<BackendReply> settle(Policy[] policies, String[] keys, long[] refunds, long[] chargedAt, long nowMicros,
            String kind) {
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < policies.length; i++) {
            String group = (cluster ? RedisKeys.hashTag(keys[i]) : "") + '@' + chargedAt[i];
            groups.computeIfAbsent(group, g -> new ArrayList<>()).add(i);
        }
        BackendReply.Builder merged = BackendReply.builder(policies.length);
        Uni<Void> done = Uni.createFrom().voidItem();
        for (List<Integer> part : groups.values()) {
            String mode = kind + chargedAt[part.get(0)];
            done = done.chain(() -> callPart(policies, keys, refunds, nowMicros, mode, part, false)
                    .invoke(r -> mergeInto(merged, r, part, policies)).replaceWithVoid());
        }
        return done.map(ignored -> merged.build());
    }

    @Override
    public Uni<Void> release(Policy[] policies, String[] keys, long[] costs, String lease, long nowMicros) {
        List<Integer> held = new ArrayList<>(policies.length);
        for (int i = 0; i < policies.length; i++) {
            if (policies[i].algorithm().holdsLeases()) {
                held.add(i);
            }
        }
        if (held.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        if (!cluster) {
            return releasePart(policies, keys, costs, lease, nowMicros, held);
        }
        // a script touches one slot: one call per slot
        Map<String, List<Integer>> groups = groupsBySlot(keys, held);
        List<Uni<Void>> parts = new ArrayList<>(groups.size());
        for (List<Integer> part : groups.values()) {
            parts.add(releasePart(policies, keys, costs, lease, nowMicros, part));
        }
        return parts.size() == 1 ? parts.get(0) : Uni.join().all(parts).andCollectFailures().replaceWithVoid();
    }

    /** The release script's arguments (see {@code release.lua}): lease, time, then per key cost and window. */
    private Uni<Void> releasePart(Policy[] policies, String[] keys, long[] costs, String lease, long nowMicros,
            List<Integer> part) {
        String[] k = new String[part.size()];
        String[] args = new String[2 + 2 * part.size()];
        args[0] = lease;
        args[1] = nowMicros < 0 ? "" : Long.toString(nowMicros);
        for (int j = 0; j < part.size(); j++) {
            int i = part.get(j);
            k[j] = keys[i];
            args[2 + 2 * j] = Long.toString(costs[i]);
            args[3 + 2 * j] = Long.toString(policies[i].windowMicros());
        }
        return executor.execute(release, k, args).replaceWithVoid();
    }

    @Override
    public Uni<BackendReply> peek(Policy policy, String key) {
        return call(new Policy[] { policy }, new String[] { key }, new long[] { 1 }, BACKEND_CLOCK, CHECK_AS_IS);
    }

    @Override
    public Uni<Void> ping() {
        return executor.send(Request.cmd(Command.PING)).replaceWithVoid();
    }

    @Override
    public boolean keepsOverrides() {
        return true;
    }

    @Override
    public Uni<Void> setOverride(String key, KeyOverride override) {
        // one command: the value and its expiry together (PXAT: Redis 6.2); the scripts also compare the expiry with
        // their own clock, so an override stops applying at its instant, not when Redis gets round to expiring it
        Request set = Request.cmd(Command.SET).arg(key + RedisKeys.OVERRIDE).arg(override.stored());
        if (override.expiresAtMicros() > 0) {
            set.arg("PXAT").arg((override.expiresAtMicros() + 999) / 1000);
        }
        return executor.send(set).replaceWithVoid();
    }

    @Override
    public Uni<KeyOverride> readOverride(String key) {
        return executor.send(Request.cmd(Command.GET).arg(key + RedisKeys.OVERRIDE))
                .map(r -> r == null ? null : KeyOverride.parse(r.toString()));
    }

    @Override
    public Uni<Void> clearOverride(String key) {
        return executor.send(Request.cmd(Command.DEL).arg(key + RedisKeys.OVERRIDE)).replaceWithVoid();
    }

    @Override
    public Uni<Void> addDenials(String tally, Map<String, Long> denials, long ttlMillis, int keep) {
        if (denials.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        // a sorted set per policy and minute, its members the identities as stored, scored by their denials; trimmed
        // to those denied most, and expiring: what it costs Redis is one ZINCRBY per identity denied on an instance in
        // a flush period, whatever the number of denials
        List<Uni<Response>> commands = new ArrayList<>(denials.size() + 2);
        denials.forEach((identity, n) -> commands.add(executor.send(Request.cmd(Command.ZINCRBY).arg(tally)
                .arg(n).arg(identity))));
        commands.add(executor.send(Request.cmd(Command.ZREMRANGEBYRANK).arg(tally).arg(0).arg(-keep - 1)));
        commands.add(executor.send(Request.cmd(Command.PEXPIRE).arg(tally).arg(ttlMillis)));
        return Uni.join().all(commands).andFailFast().replaceWithVoid();
    }

    @Override
    public Uni<Map<String, Long>> denials(List<String> tallies) {
        List<Uni<Response>> reads = new ArrayList<>(tallies.size());
        for (String t : tallies) {
            reads.add(executor.send(Request.cmd(Command.ZRANGE).arg(t).arg(0).arg(-1).arg("WITHSCORES")));
        }
        return Uni.join().all(reads).andFailFast().map(replies -> {
            Map<String, Long> sum = new HashMap<>();
            for (Response r : replies) {
                if (r == null) {
                    continue;
                }
                // RESP2: member, score, member, score...; RESP3: [member, score] pairs
                if (r.size() > 0 && r.get(0).type() == ResponseType.MULTI) {
                    for (Response pair : r) {
                        sum.merge(pair.get(0).toString(), (long) Double.parseDouble(pair.get(1).toString()), Long::sum);
                    }
                } else {
                    for (int i = 0; i + 1 < r.size(); i += 2) {
                        sum.merge(r.get(i).toString(), (long) Double.parseDouble(r.get(i + 1).toString()), Long::sum);
                    }
                }
            }
            return sum;
        });
    }

    @Override
    public Uni<Void> forget(String key) {
        // and its lock-out, if any (see decide.lua): the same hash tag, so the same slot
        return executor.send(Request.cmd(Command.DEL).arg(key).arg(key + RedisKeys.LOCKED)).replaceWithVoid();
    }

    /** Script modes (ARGV[2]): charge (see {@link PolicyTable#CHARGE}); check replying what a charge would leave; check
     * replying the state as is; the same, locking out as a charge would; a reservation's charge; a settlement; a leased
     * slice's give-back; a charge taking turns. */
    private static final String CHARGE = PolicyTable.CHARGE;
    private static final String DRY_RUN = "1";
    private static final String CHECK_AS_IS = "2";
    private static final String CHECK_AND_LOCK = "3";
    private static final String RESERVE = "R";
    private static final String SETTLE = "S";
    private static final String GIVE_BACK = "G";
    private static final String TURN = "W";

    private Uni<BackendReply> call(Policy[] policies, String[] keys, long[] costs, long nowMicros, String mode) {
        return call(policies, keys, costs, nowMicros, mode, true);
    }

    /** One script call; {@code batched}: it may go in a batch run with others. */
    private Uni<BackendReply> call(Policy[] policies, String[] keys, long[] costs, long nowMicros, String mode,
            boolean batched) {
        if (policies.length == 1 && costs[0] == 1 && nowMicros < 0 && mode == CHARGE) {
            // the common call, whose arguments are all the policy's: made once (see Encoded#chargeOfOne), as below
            Policy p = policies[0];
            return executor.execute(byAlgorithm.get(p.algorithm()), batched ? batch : null, policyTable, policies,
                    keys, encodedPolicy(p).chargeOfOne, p.overrides() ? r -> reply(r, 1) : RedisBackend::reply);
        }
        String[] args = new String[2 + policies.length * 6];
        args[0] = nowMicros < 0 ? "" : Long.toString(nowMicros);
        args[1] = mode;
        Algorithm shared = policies[0].algorithm();
        for (int i = 0; i < policies.length; i++) {
            Policy p = policies[i];
            String[] fixed = encoded(p);
            int b = 2 + i * 6;
            System.arraycopy(fixed, 0, args, b, PolicyTable.FIXED);
            long cost = costs[i];
            args[b + PolicyTable.FIXED] = PolicyTable.cost(cost);
            if (p.algorithm() != shared) {
                shared = null;
            }
        }
        LuaScript script = shared != null ? byAlgorithm.get(shared) : mixed;
        // a call naming a policy with overrides is also replied the values that applied (see decide.lua)
        int n = policies.length;
        return executor.execute(script, batched ? batch : null, policyTable, policies, keys, args,
                Policy.anyOverrides(policies) ? r -> reply(r, n) : RedisBackend::reply);
    }

    /**
     * The script arguments a policy always sends ({@link PolicyTable#FIXED}: algorithm, limit, window, burst, shadow), formatted
     * once per policy rather than on every decision. Keyed by name and checked by identity, since
     * tests may build several policies of one name.
     */
    private String[] encoded(Policy p) {
        return encodedPolicy(p).args;
    }

    private Encoded encodedPolicy(Policy p) {
        int slot = p.name().hashCode() & (RECENT - 1);
        Encoded e = recentlyEncoded[slot];
        if (e != null && e.policy == p) {
            return e; // a policy encoded lately: no map lookup
        }
        e = encodedPolicies.get(p.name());
        if (e == null || e.policy != p) {
            String[] fixed = { p.algorithm().configName(), Long.toString(p.limit()), Long.toString(p.windowMicros()),
                    Long.toString(p.burst()), flags(p) };
            String[] one = new String[2 + 6];
            one[0] = ""; // the backend's clock
            one[1] = CHARGE;
            System.arraycopy(fixed, 0, one, 2, PolicyTable.FIXED);
            one[2 + PolicyTable.FIXED] = PolicyTable.cost(1);
            e = new Encoded(p, fixed, one);
            encodedPolicies.put(p.name(), e);
        }
        recentlyEncoded[slot] = e;
        return e;
    }

    /**
     * The shadow argument: {@code 1} for a shadow policy, {@code L<us>} for one locking out, else 0; after {@code O}
     * for a policy with overrides (see decide.lua).
     */
    private static String flags(Policy p) {
        return (p.overrides() ? "O" : "") + (p.shadow() ? "1" : p.locksOut() ? "L" + p.blockForMicros() : "0");
    }

    /**
     * A policy's fixed arguments, and the whole arguments of a charge of cost 1 of it alone on the backend's clock
     * (the common call), shared by every such call: nothing writes a call's arguments once made.
     */
    private record Encoded(Policy policy, String[] args, String[] chargeOfOne) {
    }

    private Uni<BackendReply> decideAcrossSlots(Policy[] policies, String[] keys, long[] costs, long nowMicros, boolean dryRun,
            String lease, Map<String, List<Integer>> groups) {
        return decideAcrossSlots(policies, keys, costs, nowMicros, dryRun, lease, groups,
                lease == null ? CHARGE : CHARGE + lease);
    }

    /** As above, the groups charged in {@code charge} mode (a plain charge or a reservation's). */
    private Uni<BackendReply> decideAcrossSlots(Policy[] policies, String[] keys, long[] costs, long nowMicros,
            boolean dryRun, String lease, Map<String, List<Integer>> groups, String charge) {
        List<List<Integer>> parts = new ArrayList<>(groups.values());
        Uni<Void> checked = Uni.createFrom().voidItem();
        BackendReply.Builder merged = BackendReply.builder(policies.length);
        // first pass: check every group without charging; a denial then reports the state as it stands
        // (a denial there denies the call: it locks its key out as the charge would have)
        String checkMode = dryRun ? DRY_RUN : CHECK_AND_LOCK;
        for (List<Integer> part : parts) {
            checked = checked.chain(() -> callPart(policies, keys, costs, nowMicros, checkMode, part, true)
                    .invoke(r -> mergeInto(merged, r, part, policies)).replaceWithVoid());
        }
        return checked.chain(() -> {
            if (!merged.admitted() || dryRun) {
                return Uni.createFrom().item(merged.build());
            }
            // second pass: charge group by group; groups after a denial keep their uncharged view
            BackendReply.Builder result = merged;
            Uni<Void> charged = Uni.createFrom().voidItem();
            for (List<Integer> part : parts) {
                charged = charged.chain(() -> !result.admitted()
                        ? Uni.createFrom().voidItem()
                        : callPart(policies, keys, costs, nowMicros, charge, part, true)
                                .invoke(r -> mergeInto(result, r, part, policies)).replaceWithVoid());
            }
            return charged.chain(ignored -> {
                BackendReply reply = result.build();
                if (lease == null || result.admitted()) {
                    return Uni.createFrom().item(reply);
                }
                // a group denied after others were charged: the call is denied, so nobody will free the slots the
                // groups before it took; freed here, before the denial is answered (a release of a slot never
                // taken only leaves a tombstone, see concurrency.lua)
                return release(policies, keys, costs, lease, nowMicros).onFailure().recoverWithNull()
                        .replaceWith(reply);
            });
        });
    }

    private Uni<BackendReply> callPart(Policy[] policies, String[] keys, long[] costs, long nowMicros, String mode,
            List<Integer> part, boolean batched) {
        Policy[] p = new Policy[part.size()];
        String[] k = new String[part.size()];
        long[] c = new long[part.size()];
        for (int j = 0; j < part.size(); j++) {
            int i = part.get(j);
            p[j] = policies[i];
            k[j] = keys[i];
            c[j] = costs[i];
        }
        return call(p, k, c, nowMicros, mode, batched);
    }

    /**
     * Merges the reply of the call of {@code part} of {@code policies} into {@code target}; when one of them has
     * overrides, the reply says the values every policy applied, as one call's does (a part naming none of those
     * replies none: its policies applied their own).
     */
    private static void mergeInto(BackendReply.Builder target, BackendReply partResult, List<Integer> part,
            Policy[] policies) {
        if (!partResult.allAdmitted()) {
            target.denied();
        }
        boolean overrides = Policy.anyOverrides(policies);
        for (int j = 0; j < part.size(); j++) {
            int i = part.get(j);
            target.policy(i, partResult, j);
            if (overrides && !policies[i].overrides()) {
                target.applied(i, policies[i].limit(), policies[i].windowMicros());
            }
        }
    }

    private static Map<String, List<Integer>> groupsBySlot(String[] keys) {
        List<Integer> all = new ArrayList<>(keys.length);
        for (int i = 0; i < keys.length; i++) {
            all.add(i);
        }
        return groupsBySlot(keys, all);
    }

    /** The indices among {@code indices}, grouped by the cluster slot (hash tag) of their key, in order. */
    private static Map<String, List<Integer>> groupsBySlot(String[] keys, List<Integer> indices) {
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        for (int i : indices) {
            groups.computeIfAbsent(RedisKeys.hashTag(keys[i]), t -> new ArrayList<>()).add(i);
        }
        return groups;
    }


    static BackendReply reply(Response r) {
        // a call of a batch run knows how many calls the run decided; a reply of its own, one
        int runSize = r instanceof ArrayReply a ? a.runSize : 1;
        return BackendReply.ofScriptOrder(RepeatedCalls.values(r), runSize);
    }

    /** The reply of a call of {@code policies} policies, one of which has overrides. */
    static BackendReply reply(Response r, int policies) {
        int runSize = r instanceof ArrayReply a ? a.runSize : 1;
        return BackendReply.ofScriptOrder(RepeatedCalls.values(r), runSize, policies);
    }
}
