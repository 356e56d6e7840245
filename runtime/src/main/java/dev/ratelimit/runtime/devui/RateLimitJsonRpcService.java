package dev.ratelimit.runtime.devui;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import jakarta.inject.Inject;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitOverride;
import dev.ratelimit.runtime.RateLimitProducer;
import dev.ratelimit.runtime.backend.BackendProvider;
import dev.ratelimit.runtime.backend.KeyOverride;
import dev.ratelimit.runtime.config.RateLimitRuntimeConfig;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.metrics.DecisionTally;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.leasing.QuotaLeases;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.policy.PolicyRegistry;
import dev.ratelimit.runtime.resilience.CircuitBreaker;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.mutiny.Uni;

/**
 * What the Dev UI page asks the running application, over Dev UI's JSON-RPC (registered in dev mode only): which
 * backend decides and how it is doing, the decisions per policy since the start, and a key's state, read or reset
 * through the admin API of {@link dev.ratelimit.RateLimiter}.
 * <p>
 * Input the page sends wrong (no policy, an unknown one, a blank key, a plan the policy lacks) is answered with an
 * {@code error} member saying what to fix, not with a JSON-RPC error: Dev UI logs those at ERROR with a stack trace,
 * which is noise for a typo. Every method answers without blocking: the Redis calls are the limiter's own, bounded by
 * {@code quarkus.ratelimit.redis.timeout}.
 */
public class RateLimitJsonRpcService {

    @Inject
    DefaultRateLimiter limiter;

    @Inject
    RateLimitProducer producer;

    @Inject
    RateLimitRuntimeConfig config;

    @Inject
    DecisionTally tally;

    /**
     * The backend deciding and why, the Redis it uses and whether it answers now, the circuit breaker's state, and
     * whether the failure modes are answering now (and which one each policy has).
     */
    @NonBlocking
    public Uni<Map<String, Object>> status() {
        Map<String, Object> status = new LinkedHashMap<>();
        BackendProvider provider = producer.backendProvider();
        status.put("backend", limiter.backend().name());
        status.put("reason", provider == null ? "" : provider.reason());
        status.put("failureModes", failureModes());
        QuotaLeases leases = limiter.quotaLeases();
        if (leases != null) {
            status.put("leasing", leases.size() + " keys followed, " + leases.unusedUnits()
                    + " units leased from Redis and not used yet (what this instance may admit beyond the policies)");
        }
        if (!"redis".equals(limiter.backend().name())) {
            status.put("circuitBreaker", "none (in-process backend)");
            status.put("failureModeAnswering", false);
            status.put("failureModeReason", "Decisions are made in process: there is no Redis to fail.");
            return Uni.createFrom().item(status);
        }
        CircuitBreaker breaker = limiter.circuitBreaker();
        CircuitBreaker.State state = breaker == null ? null : breaker.state();
        status.put("circuitBreaker", state == null ? "disabled" : state.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        status.put("redis", provider == null ? "" : provider.address());
        Duration timeout = config.redis().timeout();
        long start = System.nanoTime();
        return limiter.backend().ping().ifNoItem().after(timeout).fail()
                .map(ok -> {
                    status.put("redisReachable", true);
                    status.put("redisPingMs", (System.nanoTime() - start) / 1_000_000);
                    return (Throwable) null;
                })
                .onFailure().recoverWithItem(failure -> {
                    status.put("redisReachable", false);
                    status.put("redisError", String.valueOf(failure));
                    return failure;
                })
                .map(failure -> {
                    answering(status, state, failure != null, timeout);
                    return status;
                });
    }

    private static void answering(Map<String, Object> status, CircuitBreaker.State breaker, boolean unreachable,
            Duration timeout) {
        if (breaker == CircuitBreaker.State.OPEN || breaker == CircuitBreaker.State.HALF_OPEN) {
            status.put("failureModeAnswering", true);
            status.put("failureModeReason", "The circuit breaker is " + (breaker == CircuitBreaker.State.OPEN
                    ? "open: no call goes to Redis until the next probe"
                    : "half-open: one probe call is testing Redis")
                    + "; each request is decided by its policy's failure mode meanwhile.");
        } else if (unreachable) {
            status.put("failureModeAnswering", true);
            status.put("failureModeReason", "Redis does not answer: each call waits up to " + timeout.toMillis()
                    + " ms, then its policy's failure mode decides"
                    + (breaker == null ? " (the circuit breaker is disabled)." : " (until the circuit breaker opens)."));
        } else {
            status.put("failureModeAnswering", false);
            status.put("failureModeReason", "Redis answers and decides.");
        }
    }

    /** Decisions per policy and outcome since the application (re)started, one row per policy. */
    @NonBlocking
    public List<Map<String, Object>> decisions() {
        List<Map<String, Object>> rows = new ArrayList<>();
        tally.snapshot().forEach((policy, counts) -> {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("policy", policy);
            row.putAll(counts);
            rows.add(row);
        });
        return rows;
    }

    /**
     * Who is limited now: per policy, the identities (as the keys store them) it denied most over the last 5 minutes,
     * across every instance sharing the backend, with their denials; policies that denied nobody are left out.
     */
    @NonBlocking
    public Uni<List<Map<String, Object>>> limited() {
        List<Uni<Map<String, Object>>> each = new ArrayList<>();
        for (Policy p : byName(limiter.policies()).values()) {
            each.add(limiter.limited(p.name(), 10).map(top -> {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("policy", p.name());
                row.put("keys", top.stream().map(e -> Map.of("identity", e.getKey(), "denials", e.getValue())).toList());
                return row;
            }));
        }
        if (each.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        return Uni.join().all(each).andCollectFailures()
                .map(rows -> rows.stream().filter(r -> !((List<?>) r.get("keys")).isEmpty()).toList())
                .onFailure().recoverWithItem(List.of());
    }

    /** The configured policies, sorted by name, each with its plans: what the page's form offers. */
    @NonBlocking
    public List<Map<String, Object>> policies() {
        PolicyRegistry registry = limiter.policies();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Policy p : byName(registry).values()) {
            String name = p.name();
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", name);
            row.put("algorithm", p.algorithm().configName());
            row.put("limit", p.limit());
            row.put("windowMillis", p.window().toMillis());
            row.put("capacity", p.capacity());
            row.put("key", p.key());
            row.put("plans", List.copyOf(new TreeMap<>(registry.plans(name)).keySet()));
            row.put("overrides", p.overrides());
            row.put("lease", p.lease() == Policy.LEASE_OFF ? "off"
                    : p.lease() == Policy.LEASE_AUTO ? "auto (slices of up to " + p.leaseMost() + ")"
                            : "slices of up to " + p.leaseMost());
            rows.add(row);
        }
        return rows;
    }

    /**
     * The state of {@code policy} for {@code key} (on {@code plan}, blank or absent: the policy's own values) as it
     * stands, charging nothing.
     */
    @NonBlocking
    public Uni<Map<String, Object>> lookup(String policy, String key, String plan) {
        String problem = KeyQuery.problem(limiter.policies(), policy, key, plan);
        if (problem != null) {
            return Uni.createFrom().item(Map.<String, Object> of("error", problem));
        }
        String onPlan = KeyQuery.plan(plan);
        return limiter.state(RateLimitCheck.of(policy, key).onPlan(onPlan))
                .map(d -> state(limiter.policies().get(policy, onPlan), onPlan, key, d))
                .chain(state -> withOverride(policy, key, state))
                .onFailure().recoverWithItem(RateLimitJsonRpcService::unanswered);
    }

    /** Gives {@code policy}'s {@code key} a limit of its own (a policy with overrides), then reads it. */
    @NonBlocking
    public Uni<Map<String, Object>> setOverride(String policy, String key, String limit) {
        String problem = KeyQuery.problem(limiter.policies(), policy, key, null);
        long value;
        try {
            value = Long.parseLong(limit == null ? "" : limit.trim());
        } catch (NumberFormatException e) {
            value = -1;
            problem = problem != null ? problem : "Enter the key's own limit: a number of units per window.";
        }
        if (problem != null) {
            return Uni.createFrom().item(Map.<String, Object> of("error", problem));
        }
        Uni<Void> set;
        try {
            set = limiter.setOverride(policy, key, RateLimitOverride.ofLimit(value));
        } catch (IllegalArgumentException | IllegalStateException e) {
            // a value out of range, or a policy without overrides=true: the message says what to fix
            return Uni.createFrom().item(Map.<String, Object> of("error", e.getMessage()));
        }
        return set.chain(() -> lookup(policy, key, null)).onFailure().recoverWithItem(RateLimitJsonRpcService::unanswered);
    }

    /** Takes {@code policy}'s {@code key} back to the policy's values, then reads it. */
    @NonBlocking
    public Uni<Map<String, Object>> clearOverride(String policy, String key) {
        String problem = KeyQuery.problem(limiter.policies(), policy, key, null);
        if (problem != null) {
            return Uni.createFrom().item(Map.<String, Object> of("error", problem));
        }
        Uni<Void> cleared;
        try {
            cleared = limiter.clearOverride(policy, key);
        } catch (IllegalStateException e) {
            return Uni.createFrom().item(Map.<String, Object> of("error", e.getMessage()));
        }
        return cleared.chain(() -> lookup(policy, key, null))
                .onFailure().recoverWithItem(RateLimitJsonRpcService::unanswered);
    }

    /** The key's override, when its policy takes them and it has one: what it sets, and the capacity it gives. */
    private Uni<Map<String, Object>> withOverride(String policy, String key, Map<String, Object> state) {
        Policy p = limiter.policies().get(policy);
        if (!p.overrides()) {
            return Uni.createFrom().item(state);
        }
        return limiter.override(policy, key).map(found -> {
            found.ifPresent(o -> {
                state.put("override", describe(o));
                if (o.plan() == null) {
                    long limit = o.limit() == null ? 0 : o.limit();
                    long burst = o.burst() == null ? 0 : o.burst();
                    state.put("capacity", p.algorithm().usesBurst() ? KeyOverride.burst(p, limit, burst)
                            : limit > 0 ? limit : p.limit());
                }
            });
            return state;
        });
    }

    private static String describe(RateLimitOverride o) {
        List<String> parts = new ArrayList<>();
        if (o.plan() != null) {
            parts.add("plan " + o.plan() + "'s values");
        }
        if (o.limit() != null) {
            parts.add("limit " + o.limit());
        }
        if (o.window() != null) {
            parts.add("window " + o.window());
        }
        if (o.burst() != null) {
            parts.add("burst " + o.burst());
        }
        parts.add(o.expiresAt() == null ? "until cleared" : "until " + o.expiresAt());
        return String.join(", ", parts);
    }

    /**
     * Makes {@code policy}'s {@code key} idle again (on every plan), then reads it: the answer is the key's state
     * after the reset, with {@code reset: true}.
     */
    @NonBlocking
    public Uni<Map<String, Object>> reset(String policy, String key) {
        String problem = KeyQuery.problem(limiter.policies(), policy, key, null);
        if (problem != null) {
            return Uni.createFrom().item(Map.<String, Object> of("error", problem));
        }
        return limiter.reset(policy, key)
                .chain(() -> limiter.state(policy, key))
                .map(d -> {
                    Map<String, Object> state = state(limiter.policies().get(policy), null, key, d);
                    state.put("reset", true);
                    return state;
                })
                .onFailure().recoverWithItem(RateLimitJsonRpcService::unanswered);
    }

    private Map<String, Object> state(Policy p, String plan, String key, PolicyDecision d) {
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("policy", p.name());
        state.put("plan", plan == null ? "" : plan);
        state.put("key", key);
        state.put("backend", limiter.backend().name());
        state.put("allowed", d.allowed());
        state.put("remaining", d.remaining());
        state.put("capacity", p.capacity());
        state.put("limit", d.limit());
        state.put("windowMillis", d.window().toMillis());
        state.put("retryAfterMillis", d.retryAfter().toMillis());
        state.put("resetMillis", d.reset().toMillis());
        QuotaLeases leases = limiter.quotaLeases();
        if (leases != null && p.leases()) {
            state.put("leasedHere", leases.unused(RedisKeys.key(limiter.keyPrefix(), p, key)));
        }
        String note = KeyQuery.note(p.key(), key);
        if (note != null) {
            state.put("note", note);
        }
        return state;
    }

    private static Map<String, Object> unanswered(Throwable failure) {
        return Map.of("error", "The rate-limit backend did not answer (" + failure
                + "). Reads and resets go to the backend directly: no failure mode answers for them.");
    }

    /** The failure mode of each policy, by name ({@code fail-open}, {@code fail-closed}, {@code local}). */
    private Map<String, String> failureModes() {
        Map<String, String> modes = new LinkedHashMap<>();
        for (Policy p : byName(limiter.policies()).values()) {
            modes.put(p.name(), p.onFailure().name().toLowerCase(Locale.ROOT).replace('_', '-'));
        }
        return modes;
    }

    private static Map<String, Policy> byName(PolicyRegistry registry) {
        Map<String, Policy> byName = new TreeMap<>();
        for (Policy p : registry.all()) {
            byName.put(p.name(), p);
        }
        return byName;
    }
}
