package dev.ratelimit.runtime.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import org.jboss.logging.Logger;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.policy.Policy;
import io.smallrye.mutiny.Uni;

/**
 * Who is limited now: per policy, the identities denied most over the last {@link #MINUTES} minutes, across every
 * instance. Each instance counts its denials in memory (a map increment per denial, at most {@link #MOST_PENDING}
 * identities between flushes; more are not counted until the next flush) and every {@link #FLUSH_SECONDS} seconds adds
 * them to a shared tally per policy and minute: in Redis a sorted set {@code <prefix>:{limited.<policy>}:<minute>},
 * scored by denials, trimmed to the {@link #KEEP} identities denied most and expiring after {@link #MINUTES} + 1
 * minutes. What it costs Redis is one {@code ZINCRBY} per identity an instance denied in a flush period, never one per
 * denial. Identities are as the keys store them: a long or unusual identity is a hash ({@code :<32 hex>}), which an
 * operator who knows the clear value can match by asking for that key.
 */
final class LimitedKeys {

    private static final Logger LOG = Logger.getLogger(LimitedKeys.class);

    static final int MINUTES = 5;
    static final int KEEP = 100;
    static final int MOST_PENDING = 10_000;
    static final long FLUSH_SECONDS = 5;

    private final RateLimitBackend backend;
    private final String prefix;
    private final Duration timeout;
    private final ConcurrentMap<String, ConcurrentMap<String, LongAdder>> pending = new ConcurrentHashMap<>();
    private final AtomicInteger pendingIdentities = new AtomicInteger();
    private final ScheduledFuture<?> flushing;

    LimitedKeys(RateLimitBackend backend, String prefix, Duration timeout, ScheduledExecutorService scheduler) {
        this.backend = backend;
        this.prefix = prefix;
        this.timeout = timeout;
        this.flushing = scheduler.scheduleWithFixedDelay(this::flushQuietly, FLUSH_SECONDS, FLUSH_SECONDS,
                TimeUnit.SECONDS);
    }

    /** One identity and its denials over the last minutes. */
    record Limited(String identity, long denials) {
    }

    /** Counts the denials of decision {@code d} (its enforced policies that denied), by the identities of {@code keys}. */
    void denied(Policy[] ps, String[] keys, RateLimitDecision d) {
        List<PolicyDecision> each = d.policies();
        for (int i = 0; i < ps.length && i < each.size(); i++) {
            PolicyDecision pd = each.get(i);
            if (pd.allowed() || pd.shadow()) {
                continue;
            }
            ConcurrentMap<String, LongAdder> byIdentity = pending.computeIfAbsent(ps[i].name(),
                    x -> new ConcurrentHashMap<>());
            String identity = RedisKeys.hashTag(keys[i]);
            LongAdder n = byIdentity.get(identity);
            if (n == null) {
                if (pendingIdentities.get() >= MOST_PENDING) {
                    continue; // a flood of distinct identities: those already counted are what the tally shows
                }
                LongAdder fresh = new LongAdder();
                n = byIdentity.putIfAbsent(identity, fresh);
                if (n == null) {
                    pendingIdentities.incrementAndGet();
                    n = fresh;
                }
            }
            n.increment();
        }
    }

    /** The tally of {@code policy} for the minute {@code minute} (minutes since the epoch). */
    private String tally(String policy, long minute) {
        return prefix + ":{limited." + policy + "}:" + minute;
    }

    private void flushQuietly() {
        try {
            flush().await().atMost(timeout.multipliedBy(2));
        } catch (RuntimeException e) {
            LOG.debugf("Could not add this instance's denials to the shared tally (%s); they are counted no more",
                    e.toString());
        }
    }

    /** Adds the denials counted since the last flush to the shared tallies of this minute. */
    Uni<Void> flush() {
        if (pending.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        long minute = System.currentTimeMillis() / 60_000;
        List<Uni<Void>> adds = new ArrayList<>();
        for (String policy : List.copyOf(pending.keySet())) {
            ConcurrentMap<String, LongAdder> counted = pending.remove(policy);
            if (counted == null) {
                continue;
            }
            Map<String, Long> denials = new HashMap<>();
            counted.forEach((identity, n) -> denials.put(identity, n.sum()));
            pendingIdentities.addAndGet(-counted.size());
            adds.add(backend.addDenials(tally(policy, minute), denials, (MINUTES + 1) * 60_000L, KEEP));
        }
        return Uni.join().all(adds).andCollectFailures().replaceWithVoid();
    }

    /** The {@code most} identities {@code policy} denied most over the last {@link #MINUTES} minutes, most first. */
    Uni<List<Limited>> top(String policy, int most) {
        long minute = System.currentTimeMillis() / 60_000;
        List<String> tallies = new ArrayList<>(MINUTES);
        for (int i = 0; i < MINUTES; i++) {
            tallies.add(tally(policy, minute - i));
        }
        return backend.denials(tallies).map(sum -> {
            List<Limited> all = new ArrayList<>(sum.size());
            sum.forEach((identity, n) -> all.add(new Limited(identity, n)));
            all.sort(Comparator.comparingLong(Limited::denials).reversed().thenComparing(Limited::identity));
            return all.size() > most ? List.copyOf(all.subList(0, most)) : List.copyOf(all);
        });
    }

    void stop() {
        flushing.cancel(false);
    }
}
