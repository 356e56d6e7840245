package dev.ratelimit.runtime.leasing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.runtime.backend.BackendReply;
import dev.ratelimit.runtime.backend.local.Eviction;
import dev.ratelimit.runtime.policy.Policy;

/**
 * Quota leasing ({@code lease}): the slices of hot keys' budgets this instance holds, and when to take one.
 * <p>
 * A slice is a reservation of {@code n} units of one key, charged in Redis in one script call like any reservation;
 * this instance then admits calls of that key from it, without a Redis call, until it is used up, its life ends (at
 * most {@link #LIFETIME_NANOS}, and for the window algorithms never past the end of the window it was charged in) or
 * the key cools down; what it did not use is then given back by settling the reservation (a refund at the instant it
 * was charged). A key is leased only while this instance sees it called at a rate that would use a slice of at least
 * {@link #LEAST_SLICE} units (and two calls) within one slice's life; colder keys, and keys close to their limit (a slice
 * is at most half of what Redis last said was left), are decided in Redis call by call.
 * <p>
 * The bound: at any moment, the calls admitted beyond what the exact policy would admit are at most the units leased
 * out and not yet used, across all instances (each instance holds at most one slice per key, of at most
 * {@link Policy#leaseMost()} units). For the window algorithms it is zero: a slice's units are counted in the window
 * they are used in. The property search of the engine tests checks it against the reference model.
 * <p>
 * This class holds state and makes no call: the limiter asks it ({@link #ask}), makes the call it says, and tells it
 * the reply ({@link #granted}); slices that ended are returned to be settled. Thread-safe: each key's state is guarded
 * by its own lock, held for a few field updates.
 */
public final class QuotaLeases {

    /** The longest a slice lives, and the period a key's rate is observed over. */
    public static final long LIFETIME_NANOS = 100_000_000L;
    /**
     * How long a slice asked for and never answered (a call given up on before its reply) keeps the key from asking
     * another: then the key may lease again.
     */
    static final long ASKING_NANOS = 10_000_000_000L;
    /**
     * The fewest units worth a slice, and the fewest calls: a key used less within one slice's life is decided call by
     * call (a slice costs a Redis call to take and one to give back what it did not use).
     */
    static final long LEAST_SLICE = 8;
    /**
     * Cold keys are counted in a small sketch, not followed one by one: per period of {@link #LIFETIME_NANOS}, the
     * units asked of the keys hashing to each of its counters. A key is followed (an entry of its own) once its counter
     * reaches {@link #WARM}; counts lost to races or shared with other keys only change when a key starts being
     * followed, never what a slice admits (every slice is charged in Redis).
     */
    private static final int SKETCH = 4096;
    static final long WARM = LEAST_SLICE / 2;
    private final long[] sketch = new long[SKETCH];
    private volatile long sketchPeriod = Long.MIN_VALUE;
    /** What a call of a key not followed yet does: go to Redis alone. */
    private static final Ask ALONE = new Ask(null, 0, null, null);

    /** Every this many sweeps, keys not called lately are forgotten (the sweep in between walks live slices only). */
    private static final int FORGET_EVERY = 50;

    private final ConcurrentMap<String, KeyLeasing> keys = new ConcurrentHashMap<>();
    /** The keys holding a slice: what the sweep walks. */
    private final java.util.Set<String> live = ConcurrentHashMap.newKeySet();
    private int sweeps;
    private final Eviction eviction;
    private final LongSupplier nanoClock;
    /** Set once every slice was given back at stop: no more slices are taken. */
    private volatile boolean closed;

    /**
     * @param maxKeys the most keys followed at once (a slice forgotten to make room stays charged: never more admitted)
     * @param nanoClock a monotonic clock in nanoseconds ({@code System::nanoTime})
     */
    public QuotaLeases(int maxKeys, LongSupplier nanoClock) {
        this.eviction = new Eviction(maxKeys);
        this.nanoClock = nanoClock;
    }

    /** A slice that ended: the units it did not use, to give back by settling its charge made at {@code chargedAt}. */
    public record Ending(Policy policy, String key, long unused, long chargedAtMicros) {
    }

    /**
     * What to do with a call: {@code decided} (admitted from a live slice; nothing else to do), else {@code slice}
     * units to reserve as a new slice, the call's own cost among them (0: decide the call alone); and {@code ending},
     * a slice of the key that ended and must be settled (null: none). A call decided alone on a key warm enough to
     * lease soon tells what Redis said is left ({@link #observed}); on a cold key that is not needed.
     */
    public record Ask(PolicyDecision decided, long slice, Ending ending, Object warm) {
        Ask(PolicyDecision decided, long slice, Ending ending) {
            this(decided, slice, ending, null);
        }
    }

    /** The next call on {@code policy}'s {@code key} with {@code cost}: admitted from a slice, or what to ask Redis. */
    public Ask ask(Policy policy, String key, long cost) {
        KeyLeasing k = keys.get(key);
        long seen = cost;
        if (k == null) {
            long now = nanoClock.getAsLong();
            long period = Math.floorDiv(now, LIFETIME_NANOS);
            if (period != sketchPeriod) {
                java.util.Arrays.fill(sketch, 0); // a new period: every cold key starts from nothing
                sketchPeriod = period;
            }
            int h = key.hashCode();
            int i = (h ^ (h >>> 16)) & (SKETCH - 1);
            seen = sketch[i] += cost;
            if (seen < WARM || closed) {
                return ALONE;
            }
            k = new KeyLeasing();
            KeyLeasing there = keys.putIfAbsent(key, k);
            if (there != null) {
                k = there;
                seen = cost;
            } else {
                eviction.trim(keys, e -> e.idle(now), e -> e.lastCall - now);
            }
        }
        synchronized (k) {
            long now = nanoClock.getAsLong();
            k.observe(seen, now); // a key followed from now on starts with what the sketch counted of it
            Ending ending = null;
            if (k.policy != null) {
                if (k.policy == policy && now - k.endsAt < 0 && k.granted - k.used >= cost) {
                    k.used += cost;
                    return new Ask(k.decision(cost, now), 0, null);
                }
                ending = k.end(key);
            }
            long slice = closed ? 0 : k.sliceFor(policy, cost, now);
            boolean warm = slice == 0 && 2 * Math.max(k.unitsNow, k.unitsBefore) >= LEAST_SLICE;
            return new Ask(null, slice, ending, warm ? k : null);
        }
    }

    /**
     * The reply to a slice of {@code units} asked by {@link #ask} for a call of {@code cost}, sent at {@code sentAt}
     * (on the nano clock) or null when no reply came (a failure): an admitted reply makes it this instance's slice,
     * the call's cost used. Returns the call's decision when the slice was granted, else null (the call is decided
     * alone).
     */
    public PolicyDecision granted(Policy policy, String key, long units, long cost, BackendReply reply, long sentAt) {
        KeyLeasing k = keys.computeIfAbsent(key, x -> new KeyLeasing());
        synchronized (k) {
            k.asking = false;
            if (reply == null) {
                return null;
            }
            k.knownRemaining = reply.remaining(0);
            if (!reply.admitted(0)) {
                return null; // refused; or a shadow policy that would deny, which charged nothing
            }
            long now = nanoClock.getAsLong();
            k.policy = policy;
            k.granted = units;
            k.used = cost;
            k.chargedAt = reply.chargedAt(0);
            k.endsAt = sentAt + lifetime(policy, k.chargedAt);
            k.remainingAtGrant = reply.remaining(0);
            k.resetAt = now + reply.resetMillis(0) * 1_000_000;
            k.limit = reply.appliedLimit(0, policy);
            k.window = reply.appliedWindow(0, policy);
            live.add(key);
            return k.decision(cost, now);
        }
    }

    /**
     * What Redis said is left of the key of {@code ask} after the call was decided alone: the key's next slice is at
     * most half of it. Nothing to do for a cold key.
     */
    public void observed(Ask ask, long remaining) {
        if (ask.warm() instanceof KeyLeasing k) {
            synchronized (k) {
                k.knownRemaining = remaining;
            }
        }
    }

    /**
     * Ends the slices whose life is over and forgets keys not called for two lifetimes; returns the slices to settle.
     * Run periodically, so that a key that cools down gives its units back.
     */
    public List<Ending> sweep() {
        long now = nanoClock.getAsLong();
        List<Ending> ended = new ArrayList<>();
        for (String key : live) {
            KeyLeasing k = keys.get(key);
            if (k == null) {
                live.remove(key);
                continue;
            }
            synchronized (k) {
                if (k.policy == null) {
                    live.remove(key);
                } else if (now - k.endsAt >= 0) {
                    Ending e = k.end(key);
                    live.remove(key);
                    if (e != null) {
                        ended.add(e);
                    }
                }
            }
        }
        if (++sweeps % FORGET_EVERY == 0) {
            keys.forEach((key, k) -> {
                synchronized (k) {
                    if (k.idle(now)) {
                        keys.remove(key, k);
                    }
                }
            });
        }
        return ended;
    }

    /** Ends every slice and takes no more (the application stops); returns them to settle. */
    public List<Ending> endAll() {
        closed = true;
        List<Ending> ended = new ArrayList<>();
        keys.forEach((key, k) -> {
            synchronized (k) {
                Ending e = k.policy == null ? null : k.end(key);
                if (e != null) {
                    ended.add(e);
                }
            }
        });
        keys.clear();
        live.clear();
        java.util.Arrays.fill(sketch, 0);
        return ended;
    }

    /** Ends the slice of {@code key}, if any (a reset): returns it to settle, or null. */
    public Ending end(String key) {
        KeyLeasing k = keys.get(key);
        if (k == null) {
            return null;
        }
        synchronized (k) {
            return k.policy == null ? null : k.end(key);
        }
    }

    /** The units of {@code key}'s live slice not used yet; 0 when this instance holds none. */
    public long unused(String key) {
        KeyLeasing k = keys.get(key);
        if (k == null) {
            return 0;
        }
        synchronized (k) {
            return k.policy != null && nanoClock.getAsLong() - k.endsAt < 0 ? k.granted - k.used : 0;
        }
    }

    /** How many keys are followed (with or without a slice). */
    public int size() {
        return keys.size();
    }

    /** The units leased out on this instance and not used yet, over all keys: what it may admit beyond the policy. */
    public long unusedUnits() {
        long now = nanoClock.getAsLong();
        long sum = 0;
        for (KeyLeasing k : keys.values()) {
            synchronized (k) {
                if (k.policy != null && now - k.endsAt < 0) {
                    sum += k.granted - k.used;
                }
            }
        }
        return sum;
    }

    /**
     * How long a slice charged at {@code chargedAt} (Redis µs) lives: {@link #LIFETIME_NANOS}, and for the window
     * algorithms no further than its window's end. Counted from when the slice was asked for, which is before Redis
     * charged it: a slice ends no later than its window, whatever the reply's delay.
     */
    static long lifetime(Policy p, long chargedAt) {
        if (p.algorithm().usesBurst()) {
            return LIFETIME_NANOS;
        }
        long w = p.windowMicros();
        long toEnd = (Math.floorDiv(chargedAt, w) + 1) * w - chargedAt;
        return Math.min(LIFETIME_NANOS, toEnd * 1000);
    }

    /** One key as this instance sees it; guarded by its own lock. */
    private static final class KeyLeasing {
        /** The rate: units asked in the current period of {@link #LIFETIME_NANOS} and in the one before. */
        long periodStart;
        long unitsNow;
        long unitsBefore;
        long lastCall;
        /** What Redis last said was left (after its charge); -1 unknown. */
        long knownRemaining = -1;
        /** Whether a slice was asked for and not answered yet: the key's other calls are decided alone meanwhile. */
        boolean asking;
        /** When it was asked for. */
        long askedAt;
        /** The live slice's policy (plan values); null: no slice. */
        Policy policy;
        long granted;
        long used;
        long chargedAt;
        long endsAt;
        long remainingAtGrant;
        long resetAt;
        long limit;
        Duration window;

        void observe(long cost, long now) {
            if (unitsNow == 0 && unitsBefore == 0 && lastCall == 0) {
                periodStart = now;
            }
            long periods = (now - periodStart) / LIFETIME_NANOS;
            if (periods > 0) {
                unitsBefore = periods == 1 ? unitsNow : 0;
                unitsNow = 0;
                periodStart += periods * LIFETIME_NANOS;
            }
            unitsNow += cost;
            lastCall = now;
        }

        /** Not called for two lifetimes and holding no slice: forgotten. */
        boolean idle(long now) {
            return policy == null && !asking && now - lastCall > 2 * LIFETIME_NANOS;
        }

        /**
         * The units to lease for a call of {@code cost}: what this instance used over the last lifetime, at most the
         * policy's slice and half of what is left; 0 when that is less than {@link #LEAST_SLICE} units or two such calls,
         * or a slice is on its way.
         */
        long sliceFor(Policy p, long cost, long now) {
            if (asking && now - askedAt < ASKING_NANOS) {
                return 0;
            }
            long want = Math.min(p.leaseMost(), Math.max(unitsNow, unitsBefore));
            if (knownRemaining >= 0) {
                want = Math.min(want, knownRemaining / 2);
            }
            if (want < Math.max(LEAST_SLICE, 2 * cost)) {
                return 0;
            }
            asking = true;
            askedAt = now;
            return want;
        }

        /** Ends the slice: what it did not use, to give back, or null when it used everything. */
        Ending end(String key) {
            Policy p = policy;
            policy = null;
            long unused = granted - used;
            return unused > 0 ? new Ending(p, key, unused, chargedAt) : null;
        }

        /**
         * The decision for a call admitted from the slice: the values that applied at the grant; remaining what Redis
         * said was left then plus what the slice still holds for this instance.
         */
        PolicyDecision decision(long cost, long now) {
            long capacity = policy.capacity();
            long remaining = Math.min(Math.max(capacity, limit), remainingAtGrant + granted - used);
            return new PolicyDecision(policy.name(), limit, window, true, remaining, Duration.ZERO,
                    Duration.ofNanos(Math.max(0, resetAt - now)), policy.shadow());
        }
    }
}
