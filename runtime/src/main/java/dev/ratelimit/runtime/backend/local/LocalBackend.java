package dev.ratelimit.runtime.backend.local;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import dev.ratelimit.runtime.algorithm.InProcessAlgorithm;
import dev.ratelimit.runtime.algorithm.Outcome;
import dev.ratelimit.runtime.algorithm.State;
import dev.ratelimit.runtime.backend.BackendReply;
import dev.ratelimit.runtime.backend.KeyOverride;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.policy.Policy;
import io.smallrye.mutiny.Uni;

/**
 * Decides in process, each policy by its algorithm's twin of its Lua script ({@link InProcessAlgorithm}), with the
 * semantics of the scripts; this class keeps the state per key, the locks, expiry and eviction. Used for
 * {@code backend=local}, for {@code on-failure=local} while Redis is away, and as the dev-mode default without Redis.
 * State is per instance.
 * <p>
 * Memory is bounded: expired state is ignored when read and swept every {@value #SWEEP_EVERY}
 * decisions, and at most {@code maxKeys} keys hold state. When a new key takes it over that, expired
 * state is swept and, if that is not enough, the state of the keys that matter least until about
 * nine tenths are left (see {@link Eviction}): first those that had used the smallest share of
 * their limit at their last admitted request (forgetting a key gives it back what it had used), and
 * never before them a key whose last request was denied. A flood of one-off keys (clients choosing
 * a new identity per request) thus evicts its own keys, not a client held at its limit.
 */
public class LocalBackend implements RateLimitBackend {

    /** Sweep expired state every this many decisions, so idle keys do not accumulate. */
    private static final int SWEEP_EVERY = 4096;
    /** The eviction score of a key whose last request was denied: above any share of a limit. */
    private static final double HELD = 2;
    /** The default of {@code quarkus.ratelimit.local.max-keys}. */
    public static final int DEFAULT_MAX_KEYS = 100_000;

    private final ConcurrentMap<String, State> states = new ConcurrentHashMap<>();
    private final KeyLocks locks = new KeyLocks();
    private final long originMicros = System.currentTimeMillis() * 1000;
    private final long originNanos = System.nanoTime();
    private final AtomicInteger decisions = new AtomicInteger();
    private final Eviction eviction;
    private final Lockouts lockouts;
    private final KnownOverrides overrides;

    public LocalBackend() {
        this(DEFAULT_MAX_KEYS);
    }

    /** @param maxKeys the most keys holding state (at least 1) */
    public LocalBackend(int maxKeys) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("max keys must be positive, got " + maxKeys);
        }
        this.eviction = new Eviction(maxKeys);
        this.lockouts = new Lockouts(maxKeys);
        this.overrides = new KnownOverrides(maxKeys);
    }

    @Override
    public String name() {
        return "local";
    }

    /** Microseconds on a monotonic clock anchored to wall time at start. */
    long nowMicros() {
        return originMicros + (System.nanoTime() - originNanos) / 1000;
    }

    /** How many keys hold state (for tests and metrics). */
    public int size() {
        return states.size();
    }

    @Override
    public Uni<BackendReply> decide(Policy[] policies, String[] keys, long[] costs, long nowMicros, boolean dryRun,
            String lease) {
        return Uni.createFrom().item(() -> decideNow(policies, keys, costs, nowMicros, dryRun, lease));
    }

    @Override
    public Uni<BackendReply> decideInTurn(Policy[] policies, String[] keys, long[] costs, long nowMicros,
            long turnMicros) {
        return Uni.createFrom().item(() -> decideNow(policies, keys, costs, nowMicros, false, null, turnMicros));
    }

    @Override
    public Uni<BackendReply> reserve(Policy[] policies, String[] keys, long[] costs, long nowMicros, String lease) {
        return Uni.createFrom().item(() -> reserveNow(policies, keys, costs, nowMicros, lease));
    }

    @Override
    public Uni<BackendReply> settle(Policy[] policies, String[] keys, long[] refunds, long[] chargedAt,
            long nowMicros) {
        return Uni.createFrom().item(() -> settleNow(policies, keys, refunds, chargedAt, nowMicros));
    }

    /** A reservation's charge: as {@link #decideNow}, and an admitted reply says when it was charged. */
    public BackendReply reserveNow(Policy[] policies, String[] keys, long[] costs, long nowMicros, String lease) {
        long now = nowMicros < 0 ? nowMicros() : nowMicros;
        BackendReply r = decideNow(policies, keys, costs, now, false, lease);
        return r.allAdmitted() ? r.toBuilder().chargedAt(now).build() : r;
    }

    /**
     * Settles a reservation: each policy gives {@code refunds[i]} units back of what it charged at
     * {@code chargedAt[i]} ({@link InProcessAlgorithm#refund}), or when negative charges that many more
     * ({@link InProcessAlgorithm#debit}); then each key's state as it stands.
     */
    public BackendReply settleNow(Policy[] policies, String[] keys, long[] refunds, long[] chargedAt,
            long nowMicros) {
        return settleNow(policies, keys, refunds, chargedAt, nowMicros, false);
    }

    @Override
    public Uni<BackendReply> giveBack(Policy[] policies, String[] keys, long[] unused, long[] chargedAt,
            long nowMicros) {
        return Uni.createFrom().item(() -> giveBackNow(policies, keys, unused, chargedAt, nowMicros));
    }

    /** A leased slice's give-back ({@link RateLimitBackend#giveBack}, {@link InProcessAlgorithm#giveBack}). */
    public BackendReply giveBackNow(Policy[] policies, String[] keys, long[] unused, long[] chargedAt, long nowMicros) {
        return settleNow(policies, keys, unused, chargedAt, nowMicros, true);
    }

    private BackendReply settleNow(Policy[] policies, String[] keys, long[] refunds, long[] chargedAt, long nowMicros,
            boolean slice) {
        long now = nowMicros < 0 ? nowMicros() : nowMicros;
        int[] stripes = locks.lock(keys);
        try {
            long[] ones = new long[policies.length];
            Policy[] applied = overrides.applied(policies, keys, now);
            for (int i = 0; i < policies.length; i++) {
                ones[i] = 1;
                if (refunds[i] == 0) {
                    continue;
                }
                Policy p = applied[i];
                State stored = states.get(keys[i]);
                State live = stored != null && stored.expiresAt() <= now ? null : stored;
                InProcessAlgorithm algorithm = p.algorithm().inProcess();
                State next = refunds[i] > 0 && slice
                        ? algorithm.giveBack(live, now, p.limit(), p.windowMicros(), p.burst(), chargedAt[i], refunds[i])
                        : refunds[i] > 0
                        ? algorithm.refund(live, now, p.limit(), p.windowMicros(), p.burst(), chargedAt[i], refunds[i])
                        : algorithm.debit(live, now, p.limit(), p.windowMicros(), p.burst(), -refunds[i]);
                if (next != live) {
                    store(keys[i], stored, next);
                }
            }
            return decideLocked(policies, keys, ones, now, true, true, null, 0);
        } finally {
            locks.unlock(stripes);
        }
    }

    @Override
    public Uni<Void> release(Policy[] policies, String[] keys, long[] costs, String lease, long nowMicros) {
        releaseNow(policies, keys, lease, nowMicros);
        return Uni.createFrom().voidItem();
    }

    /** The synchronous decision (never blocks on I/O; only on the brief per-key locks). */
    public BackendReply decideNow(Policy[] policies, String[] keys, long[] costs, long nowMicros, boolean dryRun) {
        return decideNow(policies, keys, costs, nowMicros, dryRun, null);
    }

    /** The synchronous decision; its concurrency policies take slots named {@code lease} when charged. */
    public BackendReply decideNow(Policy[] policies, String[] keys, long[] costs, long nowMicros, boolean dryRun,
            String lease) {
        return decideNow(policies, keys, costs, nowMicros, dryRun, lease, 0);
    }

    /**
     * The synchronous decision, its bucket policies taking the next turn within {@code turnMicros} (see
     * {@link #decideInTurn}; 0: none).
     */
    public BackendReply decideNow(Policy[] policies, String[] keys, long[] costs, long nowMicros, boolean dryRun,
            String lease, long turnMicros) {
        long now = nowMicros < 0 ? nowMicros() : nowMicros;
        int[] stripes = locks.lock(keys);
        try {
            return decideLocked(policies, keys, costs, now, dryRun, false, lease, turnMicros);
        } finally {
            locks.unlock(stripes);
            eviction.trim(states, st -> st.expiresAt() <= now, State::share);
            if (decisions.incrementAndGet() % SWEEP_EVERY == 0) {
                sweep(now);
            }
        }
    }

    /** Frees the slots lease {@code lease} took in the concurrency policies among {@code policies}. */
    public void releaseNow(Policy[] policies, String[] keys, String lease) {
        releaseNow(policies, keys, lease, BACKEND_CLOCK);
    }

    /**
     * Frees the slots lease {@code lease} took in the concurrency policies among {@code policies} at {@code nowMicros}
     * (or this backend's clock); a lease not held is remembered for a window, so a charge of it made later takes
     * nothing (see {@code release.lua}).
     */
    public void releaseNow(Policy[] policies, String[] keys, String lease, long nowMicros) {
        long now = nowMicros < 0 ? nowMicros() : nowMicros;
        for (int i = 0; i < policies.length; i++) {
            if (!policies[i].algorithm().holdsLeases()) {
                continue;
            }
            ReentrantLock lock = locks.of(keys[i]);
            lock.lock();
            try {
                // expired or not: a lease expired but not yet trimmed is still found (release.lua)
                State st = states.get(keys[i]);
                State next = policies[i].algorithm().inProcess().release(st, lease, now, policies[i].windowMicros());
                store(keys[i], st, next);
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    public Uni<BackendReply> peek(Policy policy, String key) {
        return Uni.createFrom().item(() -> peekNow(policy, key, BACKEND_CLOCK));
    }

    /** The state of {@code key} as it stands at {@code nowMicros} (or this backend's clock), charging nothing. */
    public BackendReply peekNow(Policy policy, String key, long nowMicros) {
        long now = nowMicros < 0 ? nowMicros() : nowMicros;
        ReentrantLock lock = locks.of(key);
        lock.lock();
        try {
            return decideLocked(new Policy[] { policy }, new String[] { key }, new long[] { 1 }, now, true, true, null, 0);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean keepsOverrides() {
        return true;
    }

    @Override
    public Uni<Void> setOverride(String key, KeyOverride override) {
        return Uni.createFrom().item(() -> overrides.put(key, override, nowMicros())).replaceWithVoid();
    }

    @Override
    public Uni<KeyOverride> readOverride(String key) {
        return Uni.createFrom().item(() -> overrides.get(key, nowMicros()));
    }

    @Override
    public Uni<Void> clearOverride(String key) {
        return Uni.createFrom().item(() -> overrides.put(key, null, 0)).replaceWithVoid();
    }

    /**
     * Applies {@code override} to {@code key} from the next decision on (null: none): what another backend holds, as
     * this instance learnt it, for when this backend decides in its place.
     */
    public void rememberOverride(String key, KeyOverride override) {
        overrides.put(key, override, nowMicros());
    }

    /** The denial tallies ({@link #addDenials}): per tally, when it expires (nanos) and its counts. */
    private final Map<String, Tally> tallies = new ConcurrentHashMap<>();

    private record Tally(long expiresAt, Map<String, Long> counts) {
    }

    @Override
    public Uni<Void> addDenials(String tally, Map<String, Long> denials, long ttlMillis, int keep) {
        long now = System.nanoTime();
        tallies.values().removeIf(t -> t.expiresAt() - now <= 0);
        tallies.compute(tally, (k, t) -> {
            Map<String, Long> counts = new HashMap<>(t == null ? Map.of() : t.counts());
            denials.forEach((identity, n) -> counts.merge(identity, n, Long::sum));
            if (counts.size() > keep) {
                List<Map.Entry<String, Long>> most = new ArrayList<>(counts.entrySet());
                most.sort(Map.Entry.<String, Long> comparingByValue().reversed());
                counts.keySet().retainAll(most.subList(0, keep).stream().map(Map.Entry::getKey).toList());
            }
            return new Tally(now + ttlMillis * 1_000_000, Map.copyOf(counts));
        });
        return Uni.createFrom().voidItem();
    }

    @Override
    public Uni<Map<String, Long>> denials(List<String> names) {
        long now = System.nanoTime();
        Map<String, Long> sum = new HashMap<>();
        for (String name : names) {
            Tally t = tallies.get(name);
            if (t != null && t.expiresAt() - now > 0) {
                t.counts().forEach((identity, n) -> sum.merge(identity, n, Long::sum));
            }
        }
        return Uni.createFrom().item(sum);
    }

    @Override
    public Uni<Void> forget(String key) {
        forgetNow(key);
        return Uni.createFrom().voidItem();
    }

    /** Forgets the state of {@code key}. */
    public void forgetNow(String key) {
        ReentrantLock lock = locks.of(key);
        lock.lock();
        try {
            states.remove(key);
            lockouts.forget(key);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Decides under the keys' locks; {@code dryRun} charges nothing, and {@code asIs} (with it) reports the state as it
     * stands rather than what a charge would leave.
     */
    private BackendReply decideLocked(Policy[] configured, String[] keys, long[] costs, long now, boolean dryRun,
            boolean asIs, String lease, long turn) {
        int n = configured.length;
        Policy[] policies = overrides.applied(configured, keys, now);
        Outcome[] outcomes = new Outcome[n];
        boolean all = true;
        for (int i = 0; i < n; i++) {
            Policy p = policies[i];
            Outcome locked = p.locksOut() ? lockouts.deniedWhileLocked(keys[i], now) : null;
            if (locked != null) {
                outcomes[i] = locked;
                all &= p.shadow();
                continue;
            }
            InProcessAlgorithm algorithm = p.algorithm().inProcess();
            State stored = states.get(keys[i]);
            if (stored != null && stored.expiresAt() <= now) {
                stored = null;
            }
            State st = algorithm.read(stored, now, p.limit(), p.windowMicros());
            store(keys[i], stored, st); // converted when read (as the script does), whatever is decided
            outcomes[i] = algorithm.decide(st, now, p.limit(), p.windowMicros(), p.burst(), costs[i],
                    dryRun ? null : lease, turn);
            if (st != null && !outcomes[i].ok()) {
                st.share(HELD); // denied by its own state: a client at its limit, kept over any other
            }
            if (p.locksOut() && !outcomes[i].ok() && outcomes[i].retry() >= 0) {
                outcomes[i] = lockouts.lockedOut(outcomes[i], p, keys[i], now, !dryRun);
            }
            if (!outcomes[i].ok() && !p.shadow()) {
                all = false;
            }
        }
        BackendReply.Builder reply = BackendReply.builder(n);
        if (!all) {
            reply.denied();
        }
        for (int i = 0; i < n; i++) {
            Outcome o = outcomes[i];
            long remaining;
            long reset;
            if (all && o.ok() && !asIs) {
                if (!dryRun) {
                    State next = o.charged(now, policies[i].windowMicros(), costs[i], lease);
                    next.share(share(policies[i], Math.max(o.avail() - costs[i], 0)));
                    states.put(keys[i], next);
                }
                remaining = Math.max(o.avail() - costs[i], 0); // a turn admits more than is available now
                reset = o.reset();
            } else {
                remaining = o.avail();
                reset = o.resetNow();
            }
            reply.policy(i, o.ok(), remaining, o.retry() > 0 ? millis(o.retry()) : o.retry(),
                    reset > 0 ? millis(reset) : 0);
        }
        if (Policy.anyOverrides(configured)) {
            // as the scripts reply it: the values every policy applied
            for (int i = 0; i < n; i++) {
                reply.applied(i, policies[i].limit(), policies[i].windowMicros());
            }
        }
        return reply.build();
    }

    /** Stores {@code next} in place of {@code stored} under {@code key}: {@code null} removes it. */
    private void store(String key, State stored, State next) {
        if (next == null) {
            if (stored != null) {
                states.remove(key, stored);
            }
        } else if (next != stored) {
            states.put(key, next);
        }
    }

    /** The share of its capacity a key has used, once {@code left} units are left (1: all of it). */
    private static double share(Policy p, long left) {
        long capacity = Math.max(1, p.capacity());
        return (double) (capacity - left) / capacity;
    }

    /** Whole milliseconds, rounded up, at least 1, as the scripts round. */
    private static long millis(long micros) {
        return Math.max(1, (micros + 999) / 1000);
    }

    private void sweep(long now) {
        states.values().removeIf(st -> st.expiresAt() <= now);
        lockouts.sweep(now);
    }
}
