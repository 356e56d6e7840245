package dev.ratelimit.runtime;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.smallrye.mutiny.Uni;

/**
 * The six algorithms in process, with the semantics of the Lua scripts (each method mirrors its
 * script; read them side by side). Used for {@code backend=local}, for {@code on-failure=local}
 * while Redis is away, and as the dev-mode default without Redis. State is per instance.
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

    private static final double EPS = 1e-9;
    private static final int STRIPES = 64;
    /** Sweep expired state every this many decisions, so idle keys do not accumulate. */
    private static final int SWEEP_EVERY = 4096;
    /** The eviction score of a key whose last request was denied: above any share of a limit. */
    private static final double HELD = 2;
    /** The default of {@code quarkus.ratelimit.local.max-keys}. */
    public static final int DEFAULT_MAX_KEYS = 100_000;

    private final ConcurrentMap<String, State> states = new ConcurrentHashMap<>();
    private final ReentrantLock[] locks = new ReentrantLock[STRIPES];
    private final long originMicros = System.currentTimeMillis() * 1000;
    private final long originNanos = System.nanoTime();
    private final AtomicInteger decisions = new AtomicInteger();
    private final Eviction eviction;

    public LocalBackend() {
        this(DEFAULT_MAX_KEYS);
    }

    /** @param maxKeys the most keys holding state (at least 1) */
    public LocalBackend(int maxKeys) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("max keys must be positive, got " + maxKeys);
        }
        this.eviction = new Eviction(maxKeys);
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new ReentrantLock();
        }
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
    public Uni<long[]> decide(Policy[] policies, String[] keys, long[] costs, long nowMicros, boolean dryRun) {
        return Uni.createFrom().item(() -> decideNow(policies, keys, costs, nowMicros, dryRun));
    }

    /** The synchronous decision (never blocks on I/O; only on the brief per-key locks). */
    public long[] decideNow(Policy[] policies, String[] keys, long[] costs, long nowMicros, boolean dryRun) {
        long now = nowMicros < 0 ? nowMicros() : nowMicros;
        int[] stripes = stripes(keys);
        for (int s : stripes) {
            locks[s].lock();
        }
        try {
            return decideLocked(policies, keys, costs, now, dryRun);
        } finally {
            for (int i = stripes.length - 1; i >= 0; i--) {
                locks[stripes[i]].unlock();
            }
            eviction.trim(states, st -> st.expiresAt <= now, st -> st.share);
            if (decisions.incrementAndGet() % SWEEP_EVERY == 0) {
                sweep(now);
            }
        }
    }

    private long[] decideLocked(Policy[] policies, String[] keys, long[] costs, long now, boolean dryRun) {
        int n = policies.length;
        Outcome[] outcomes = new Outcome[n];
        boolean all = true;
        for (int i = 0; i < n; i++) {
            Policy p = policies[i];
            State st = states.get(keys[i]);
            if (st != null && st.expiresAt <= now) {
                st = null;
            }
            outcomes[i] = check(p.algorithm(), st, now, p.limit(), p.windowMicros(), p.burst(), costs[i]);
            if (st != null && !outcomes[i].ok) {
                st.share = HELD; // denied by its own state: a client at its limit, kept over any other
            }
            if (!outcomes[i].ok && !p.shadow()) {
                all = false;
            }
        }
        long[] res = new long[1 + 4 * n];
        res[0] = all ? 1 : 0;
        for (int i = 0; i < n; i++) {
            Outcome o = outcomes[i];
            int b = 1 + 4 * i;
            res[b] = o.ok ? 1 : 0;
            double reset;
            if (all && o.ok) {
                if (!dryRun) {
                    for (long k = 0; k < o.logAppends; k++) {
                        o.next.log.add(now);
                    }
                    o.next.share = share(policies[i], o.avail - costs[i]);
                    states.put(keys[i], o.next);
                }
                res[b + 1] = o.avail - costs[i];
                reset = o.reset;
            } else {
                res[b + 1] = o.avail;
                reset = o.resetNow;
            }
            res[b + 2] = o.retry > 0 ? millis(o.retry) : (long) o.retry;
            res[b + 3] = reset > 0 ? millis(reset) : 0;
        }
        return res;
    }

    /** The share of its capacity a key has used, once {@code left} units are left (1: all of it). */
    private static double share(Policy p, long left) {
        long capacity = Math.max(1, p.capacity());
        return (double) (capacity - left) / capacity;
    }

    /** As the scripts round: up, at least 1, ignoring floating-point noise far below a microsecond. */
    private static long millis(double micros) {
        return Math.max(1, (long) Math.ceil((micros - 0.001) / 1000));
    }

    private static Outcome check(Algorithm a, State st, long now, long limit, long window, long burst, long cost) {
        switch (a) {
            case FIXED_WINDOW:
                return fixedWindow(st, now, limit, window, cost);
            case SLIDING_WINDOW_LOG:
                return slidingLog(st, now, limit, window, cost);
            case SLIDING_WINDOW_COUNTER:
                return slidingCounter(st, now, limit, window, cost);
            case TOKEN_BUCKET:
                return tokenBucket(st, now, limit, window, burst, cost);
            case LEAKY_BUCKET:
                return leakyBucket(st, now, limit, window, burst, cost);
            case GCRA:
                return gcra(st, now, limit, window, burst, cost);
            default:
                throw new IllegalArgumentException(a.toString());
        }
    }

    private static Outcome fixedWindow(State st, long now, long limit, long window, long cost) {
        long idx = Math.floorDiv(now, window);
        long count = st != null && st.index == idx ? (long) st.a : 0;
        double left = (idx + 1) * window - now;
        double resetNow = count == 0 ? 0 : left;
        if (cost > limit) {
            return Outcome.denied(limit - count, -1, resetNow);
        }
        if (count + cost > limit) {
            return Outcome.denied(limit - count, left, resetNow);
        }
        return Outcome.allowed(limit - count, left, resetNow, new State(idx, count + cost, 0, null, now + (long) left));
    }

    private static Outcome slidingLog(State st, long now, long limit, long window, long cost) {
        TimeLog log = st != null ? st.log : new TimeLog();
        log.removeUpTo(now - window);
        long count = log.size();
        double resetNow = count > 0 ? log.get(0) + window - now : 0;
        if (cost > limit) {
            return Outcome.denied(limit - count, -1, resetNow);
        }
        if (count + cost > limit) {
            // admitted once the (count + cost - limit) oldest entries have left the window
            int rank = (int) (count + cost - limit - 1);
            return Outcome.denied(limit - count, log.get(rank) + window - now, resetNow);
        }
        double reset = count > 0 ? resetNow : window;
        // the admitted times are appended only if the whole decision commits (see decideLocked)
        Outcome o = Outcome.allowed(limit - count, reset, resetNow, new State(0, 0, 0, log, now + window));
        o.logAppends = cost;
        return o;
    }

    private static Outcome slidingCounter(State st, long now, long limit, long window, long cost) {
        long idx = Math.floorDiv(now, window);
        double elapsed = now - idx * window;
        double prev = 0;
        double cur = 0;
        if (st != null) {
            if (st.index == idx) {
                prev = st.a;
                cur = st.b;
            } else if (st.index == idx - 1) {
                prev = st.b;
            }
        }
        double estimate = prev * (1 - elapsed / window) + cur;
        long avail = Math.max(0, (long) Math.floor(limit - estimate + EPS));
        double resetNow = avail < limit ? counterWait(prev, cur, limit - avail - 1, elapsed, window) : 0;
        if (cost > limit) {
            return Outcome.denied(avail, -1, resetNow);
        }
        if (estimate + cost > limit + EPS) {
            return Outcome.denied(avail, counterWait(prev, cur, limit - cost, elapsed, window), resetNow);
        }
        long left = avail - cost;
        double reset = counterWait(prev, cur + cost, limit - left - 1, elapsed, window);
        return Outcome.allowed(avail, reset, resetNow,
                new State(idx, prev, cur + cost, null, now + (long) (2 * window - elapsed)));
    }

    private static double counterWait(double p, double c, double target, double elapsed, long window) {
        if (c <= target) {
            if (p * (1 - elapsed / window) + c <= target + EPS) {
                return 0;
            }
            return Math.max(0, window * (1 - (target - c) / p) - elapsed);
        }
        return (window - elapsed) + window * (1 - target / c);
    }

    private static Outcome tokenBucket(State st, long now, long limit, long window, long burst, long cost) {
        double perToken = (double) window / limit;
        double full = now - burst * perToken;
        double emptyAt = st != null ? Math.max(full, st.a) : full;
        double tokens = (now - emptyAt) / perToken;
        long avail = (long) Math.floor(tokens + EPS);
        double unitNow = bucketNextUnit(tokens, burst, perToken);
        if (cost > burst) {
            return Outcome.denied(avail, -1, unitNow);
        }
        if (tokens + EPS < cost) {
            return Outcome.denied(avail, (cost - tokens) * perToken, unitNow);
        }
        double left = tokens - cost;
        return Outcome.allowed(avail, bucketNextUnit(left, burst, perToken), unitNow,
                new State(0, emptyAt + cost * perToken, 0, null, now + (long) Math.ceil((burst - left) * perToken)));
    }

    private static double bucketNextUnit(double tokens, long burst, double perToken) {
        if (tokens >= burst - EPS) {
            return 0;
        }
        return (Math.floor(tokens + EPS) + 1 - tokens) * perToken;
    }

    private static Outcome leakyBucket(State st, long now, long limit, long window, long burst, long cost) {
        double perUnit = (double) window / limit;
        double drainedAt = st != null ? Math.max(now, st.a) : now;
        double level = (drainedAt - now) / perUnit;
        long avail = (long) Math.floor(burst - level + EPS);
        double unitNow = leakyNextUnit(level, burst, perUnit);
        if (cost > burst) {
            return Outcome.denied(avail, -1, unitNow);
        }
        if (level + cost > burst + EPS) {
            return Outcome.denied(avail, (level + cost - burst) * perUnit, unitNow);
        }
        double filled = level + cost;
        return Outcome.allowed(avail, leakyNextUnit(filled, burst, perUnit), unitNow,
                new State(0, drainedAt + cost * perUnit, 0, null, now + (long) Math.ceil(filled * perUnit)));
    }

    private static double leakyNextUnit(double level, long burst, double perUnit) {
        if (level <= EPS) {
            return 0;
        }
        double room = Math.floor(burst - level + EPS);
        return Math.max(0, (level - (burst - room - 1)) * perUnit);
    }

    private static Outcome gcra(State st, long now, long limit, long window, long burst, long cost) {
        double interval = (double) window / limit;
        double tolerance = burst * interval;
        double tat = st != null ? Math.max(now, st.a) : now;
        long avail = (long) Math.floor((now + tolerance - tat) / interval + EPS);
        double unitNow = gcraNextUnit(tat, now, tolerance, interval);
        if (cost > burst) {
            return Outcome.denied(avail, -1, unitNow);
        }
        double newTat = tat + cost * interval;
        double allowAt = newTat - tolerance;
        if (allowAt > now + EPS * interval) {
            return Outcome.denied(avail, allowAt - now, unitNow);
        }
        return Outcome.allowed(avail, gcraNextUnit(newTat, now, tolerance, interval), unitNow,
                new State(0, newTat, 0, null, (long) Math.ceil(newTat)));
    }

    private static double gcraNextUnit(double tat, long now, double tolerance, double interval) {
        if (tat <= now) {
            return 0;
        }
        double free = (now + tolerance - tat) / interval;
        return (Math.floor(free + EPS) + 1 - free) * interval;
    }

    private int[] stripes(String[] keys) {
        int[] s = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            s[i] = (keys[i].hashCode() & 0x7fffffff) % STRIPES;
        }
        // a fixed order (and no duplicates) so two requests can never lock in opposite orders
        Arrays.sort(s);
        int n = 0;
        for (int i = 0; i < s.length; i++) {
            if (n == 0 || s[n - 1] != s[i]) {
                s[n++] = s[i];
            }
        }
        return Arrays.copyOf(s, n);
    }

    private void sweep(long now) {
        states.values().removeIf(st -> st.expiresAt <= now);
    }

    /**
     * Per-key state: meaning of the fields depends on the algorithm (index: window index or last
     * update time; a, b: counts, tokens, level or TAT; log: admitted times). {@code share} is
     * what eviction keeps the state by: the share of the limit (or burst) used after the last
     * admitted request, set before the state is stored, or {@link #HELD} once a request is denied
     * by this state (written under the key's lock, read by the evicting thread without it).
     */
    private static final class State {
        final long index;
        final double a;
        final double b;
        final TimeLog log;
        final long expiresAt;
        volatile double share;

        State(long index, double a, double b, TimeLog log, long expiresAt) {
            this.index = index;
            this.a = a;
            this.b = b;
            this.log = log;
            this.expiresAt = expiresAt;
        }
    }

    /**
     * The admitted times of a sliding log, oldest first, in a ring of primitive longs: 8 bytes an entry, where a
     * deque of boxed times took about 24, and no object per admitted request. Mutated under its key's lock.
     */
    static final class TimeLog {
        private static final int MIN_CAPACITY = 4;
        /** A power of two in length. */
        private long[] times = new long[MIN_CAPACITY];
        private int head;
        private int size;

        int size() {
            return size;
        }

        /** The entry of this rank, 0 being the oldest; {@code rank} must be below {@link #size()}. */
        long get(int rank) {
            return times[(head + rank) & (times.length - 1)];
        }

        void add(long time) {
            if (size == times.length) {
                resize(times.length * 2);
            }
            times[(head + size) & (times.length - 1)] = time;
            size++;
        }

        /** Drops the oldest entries while they are at or before {@code time}; gives memory back once mostly empty. */
        void removeUpTo(long time) {
            int mask = times.length - 1;
            while (size > 0 && times[head] <= time) {
                head = (head + 1) & mask;
                size--;
            }
            if (times.length > MIN_CAPACITY && size <= times.length / 4) {
                resize(Math.max(MIN_CAPACITY, Integer.highestOneBit(Math.max(1, size)) * 2));
            }
        }

        /** Entries the ring holds before it grows. */
        int capacity() {
            return times.length;
        }

        private void resize(int capacity) {
            long[] next = new long[capacity];
            for (int i = 0; i < size; i++) {
                next[i] = get(i);
            }
            times = next;
            head = 0;
        }
    }

    private static final class Outcome {
        final boolean ok;
        final long avail;
        final double retry;
        final double reset;
        final double resetNow;
        final State next;
        long logAppends;

        private Outcome(boolean ok, long avail, double retry, double reset, double resetNow, State next) {
            this.ok = ok;
            this.avail = avail;
            this.retry = retry;
            this.reset = reset;
            this.resetNow = resetNow;
            this.next = next;
        }

        static Outcome denied(long avail, double retry, double resetNow) {
            return new Outcome(false, avail, retry, resetNow, resetNow, null);
        }

        static Outcome allowed(long avail, double reset, double resetNow, State next) {
            return new Outcome(true, avail, 0, reset, resetNow, next);
        }
    }
}
