package dev.ratelimit.runtime.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.backend.BackendReply;
import dev.ratelimit.runtime.backend.local.Eviction;
import dev.ratelimit.runtime.policy.Policy;

/**
 * Remembers recent denials by Redis so that a flood on an over-limit key is denied in process
 * instead of costing a Redis call per request (the over-limit cache of Envoy's rate-limit service).
 * <p>
 * When Redis denies {@code cost} units of a policy for a key and reports that they could be admitted
 * in {@code T}, every request for that policy and key with a cost of at least {@code cost} is denied
 * here until {@code T} has passed, measured from the moment the call was <em>sent</em> (Redis read
 * its clock later than that, so the entry never outlives Redis's own answer), minus a safety margin
 * of {@code safetyMargin} plus 0.1% of {@code T} (for the millisecond rounding of the script's reply
 * and clock-rate differences between hosts). A request denied here is told to retry when Redis said,
 * counted from the reply's arrival, as if Redis had answered it: the margin shortens the entry, not
 * the {@code Retry-After}.
 * <p>
 * Why this never denies what Redis would admit: what Redis reports is how long this key needs if
 * nobody consumes anything more. Other callers (other instances included) can only consume more,
 * which makes Redis deny longer; the passing of time is the only thing that makes it admit, and the
 * entry expires before that time. A larger cost needs at least as long as a smaller one under every
 * algorithm. The entry is keyed by the Redis key (prefix, identity, policy name) and by the policy's
 * algorithm, limit, window and burst, so changed policy values never hit an old entry.
 * <p>
 * Memory is bounded: at most {@code maxEntries} entries (plus what other threads insert while one
 * trims). Expired entries are dropped when read; when a reply's entries take the cache over the
 * bound, expired entries are swept and, if that is not enough, about the tenth of the entries
 * closest to expiry is dropped. Forgetting is always safe: Redis then decides.
 * <p>
 * A denial of a policy with a lock-out ({@code block-for}), of one counting by outcome, or of one reserved through this
 * instance is held at most a second whatever it reports: a reset lifts a lock-out before its end, and a settlement
 * gives units back, on whichever instance it is made, and the others should see that within a second.
 */
public final class DenyCache {

    /** The portion of an entry's duration given up for clock-rate differences: 1/1000 (0.1%). */
    private static final long RATE_MARGIN_DIVISOR = 1000;
    /** The longest a denial of a policy with a lock-out ({@code block-for}) is held: a reset lifts the lock-out. */
    private static final long LOCKOUT_HOLD_NANOS = 1_000_000_000L;

    private final long marginNanos;
    private final LongSupplier nanoClock;
    private final ConcurrentMap<Key, Entry> entries = new ConcurrentHashMap<>();
    /** The policies reserved (and so settled) through this instance: units may come back to their keys. */
    private final Set<String> settled = ConcurrentHashMap.newKeySet();
    private final Eviction eviction;

    /**
     * @param maxEntries the most entries held
     * @param safetyMargin subtracted from every entry's duration
     * @param nanoClock a monotonic clock in nanoseconds ({@code System::nanoTime})
     */
    public DenyCache(int maxEntries, Duration safetyMargin, LongSupplier nanoClock) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("max entries must be positive, got " + maxEntries);
        }
        this.eviction = new Eviction(maxEntries);
        this.marginNanos = safetyMargin.toNanos();
        this.nanoClock = nanoClock;
    }

    /** What identifies a cached denial: the full Redis key and the policy values that decide it. */
    private record Key(String redisKey, Algorithm algorithm, long limit, long windowMicros, long burst) {
        static Key of(Policy p, String redisKey) {
            return new Key(redisKey, p.algorithm(), p.limit(), p.windowMicros(), p.burst());
        }
    }

    /**
     * A denial: costs of at least {@code cost} are denied until {@code expiresAt}; {@code admitAt} is
     * when Redis said they could be admitted, counted from the reply's arrival as for an answer
     * straight from Redis (what {@code Retry-After} reports; later than {@code expiresAt});
     * {@code resetAt} and {@code remaining} are the rest of Redis's answer, for the headers.
     */
    private record Entry(long cost, long expiresAt, long admitAt, long resetAt, long remaining) {
    }

    /**
     * The cached answer to this request, one decision per check, or {@code null} when no check is
     * covered by a cached denial (then the backend must decide). A request is covered when one of its
     * enforced checks is; its other checks are reported from what the same denial said of them, and
     * when nothing is known of one of them the backend decides, so a cached answer carries the same
     * fields as Redis's. Shadow policies never cover a request.
     */
    public List<PolicyDecision> lookup(Policy[] policies, String[] keys, long[] costs) {
        if (entries.isEmpty()) {
            return null; // nothing denied lately: no key to build, no key string to hash
        }
        Entry[] found = null;
        boolean covered = false;
        long now = 0;
        for (int i = 0; i < policies.length; i++) {
            Entry e = entries.get(Key.of(policies[i], keys[i]));
            if (e == null) {
                if (covered) {
                    return null;
                }
                continue;
            }
            if (found == null) {
                found = new Entry[policies.length];
                now = nanoClock.getAsLong();
            }
            if (e.expiresAt - now <= 0) {
                entries.remove(Key.of(policies[i], keys[i]), e);
                continue;
            }
            found[i] = e;
            covered |= !policies[i].shadow() && costs[i] >= e.cost;
        }
        if (!covered) {
            return null;
        }
        List<PolicyDecision> decisions = new ArrayList<>(policies.length);
        for (int i = 0; i < policies.length; i++) {
            Policy p = policies[i];
            Entry e = found[i];
            if (e == null) {
                return null; // nothing known of this policy: Redis must answer for the whole request
            }
            boolean denies = !p.shadow() && costs[i] >= e.cost;
            decisions.add(new PolicyDecision(p.name(), p.limit(), p.window(), !denies, e.remaining,
                    denies ? Duration.ofNanos(e.admitAt - now) : Duration.ZERO,
                    Duration.ofNanos(Math.max(0, e.resetAt - now)), p.shadow()));
        }
        return decisions;
    }

    /**
     * Records the denials in a backend reply.
     *
     * @param reply what the backend answered
     * @param sentAt when the call was sent, on {@code nanoClock}
     */
    public void remember(Policy[] policies, String[] keys, long[] costs, BackendReply reply, long sentAt) {
        if (reply.allAdmitted()) {
            return;
        }
        long now = nanoClock.getAsLong();
        long latestExpiry = 0;
        boolean any = false;
        for (int i = 0; i < policies.length; i++) {
            Policy p = policies[i];
            long retryMs = reply.retryMillis(i);
            if (reply.admitted(i) || p.shadow() || retryMs <= 0 || p.algorithm().holdsLeases() || p.overrides()) {
                // admitted, never enforced, never admissible (the limiter refuses such costs), a slot in flight,
                // which any request ending frees at any moment, or a key whose values may change on any instance at
                // any moment (an override applies from the next decision on)
                continue;
            }
            long retryNanos = retryMs * 1_000_000;
            long expiresAt = sentAt + retryNanos - marginNanos - retryNanos / RATE_MARGIN_DIVISOR;
            if (p.locksOut() || p.givesBack() || settled.contains(p.name())) {
                // a lock-out ends early when it is reset, and units given back end a denial early, on any instance:
                // held here a second at most
                expiresAt = Math.min(expiresAt, sentAt + LOCKOUT_HOLD_NANOS);
            }
            if (expiresAt - now <= 0) {
                continue;
            }
            // each denial is a true statement, the latest the freshest
            entries.put(Key.of(p, keys[i]), new Entry(costs[i], expiresAt, now + retryNanos,
                    now + reply.resetMillis(i) * 1_000_000, reply.remaining(i)));
            latestExpiry = any ? Math.max(latestExpiry, expiresAt) : expiresAt;
            any = true;
        }
        if (!any) {
            return;
        }
        // what the same reply said of the request's other policies, so that a cached answer reports them
        // too; such entries never cover a request themselves (their cost is unreachable)
        for (int i = 0; i < policies.length; i++) {
            if ((reply.admitted(i) || policies[i].shadow() || reply.retryMillis(i) <= 0) && !policies[i].overrides()) {
                entries.putIfAbsent(Key.of(policies[i], keys[i]), new Entry(Long.MAX_VALUE, latestExpiry, 0,
                        now + reply.resetMillis(i) * 1_000_000, reply.remaining(i)));
            }
        }
        // over the bound: expired entries go first, then those closest to expiry (forgetting is safe)
        eviction.trim(entries, e -> e.expiresAt - now <= 0, e -> e.expiresAt - now);
    }

    /** How many entries are held (expired ones included until swept). */
    public int size() {
        return entries.size();
    }

    /** Forgets the denials of one Redis key (under any policy values: every plan of its policy). */
    public void forget(String redisKey) {
        entries.keySet().removeIf(k -> k.redisKey().equals(redisKey));
    }

    /**
     * Units may come back to {@code policy}'s keys (it is reserved and settled): its denials are held a second at most
     * from now on, so that a refund made through another instance is seen within a second.
     */
    public void settles(String policy) {
        settled.add(policy);
    }

    /** Forgets the denial remembered for {@code policy}'s {@code redisKey} on its current values, if any. */
    public void forget(Policy policy, String redisKey) {
        if (!entries.isEmpty()) {
            entries.remove(Key.of(policy, redisKey));
        }
    }

    /** Forgets everything. */
    public void clear() {
        entries.clear();
    }

}
