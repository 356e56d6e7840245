package dev.ratelimit.runtime.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.PolicyMode;
import io.quarkus.runtime.annotations.ConfigDocEnum;
import io.quarkus.runtime.annotations.ConfigDocMapKey;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;

/**
 * One policy.
 */
public interface PolicyConfig {

    /**
     * The algorithm: `fixed-window`, `sliding-window-log`, `sliding-window-counter`, `token-bucket`, `leaky-bucket`,
     * `gcra`, or `concurrency` (at most `limit` requests in flight per key; `window` is the longest a slot is held
     * when its instance dies before freeing it).
     */
    @WithDefault("token-bucket")
    @WithConverter(AlgorithmConverter.class)
    // the converter reads the configuration names, which are the constants' names hyphenated
    @ConfigDocEnum(enforceHyphenateValues = true)
    Algorithm algorithm();

    /**
     * Units admitted per window (with `concurrency`: at once), from 1 to 10,000,000 (the range where every decision
     * is exact).
     */
    OptionalInt limit();

    /**
     * The window, e.g. `1s`, `1m`, `1h`: from 1 ms to 366 days, a whole number of microseconds.
     */
    Optional<Duration> window();

    /**
     * For bucket algorithms (`token-bucket`, `leaky-bucket`, `gcra`): how many units an idle
     * key admits at once, up to 10,000,000, and refilled within 366 days (burst x window / limit).
     * Defaults to the limit.
     */
    OptionalInt burst();

    /**
     * What a request is counted against: `ip`, `principal`, `header:Name` (e.g. `header:X-Api-Key`), `global`, or the
     * `@Identifier`/`@Named` name of a `KeyResolver` bean.
     */
    @WithDefault("ip")
    String key();

    /**
     * Paths this policy applies to without any annotation, in the syntax of Quarkus HTTP
     * permission paths: an exact path or a prefix ending in `/*`. They are matched against the
     * full path Quarkus REST routed the request on (decoded, matrix parameters removed), so every
     * spelling of a path that reaches a resource method counts.
     */
    Optional<List<String>> paths();

    /**
     * HTTP methods the `paths` apply to; all methods when not set.
     */
    Optional<List<String>> methods();

    /**
     * `enforce` denies over-limit requests; `shadow` decides and reports (headers, metrics and, for
     * requests the REST filter decides, a DEBUG log line) but never denies, for dark-launching a limit.
     */
    @WithDefault("enforce")
    PolicyMode mode();

    /**
     * Overrides `quarkus.ratelimit.on-failure` for this policy.
     */
    Optional<FailureMode> onFailure();

    /**
     * Which HTTP responses count against the limit: `all`, `failures` (4xx and 5xx: a login limiter counting wrong
     * passwords), `successes` (1xx to 3xx), or a list of statuses (`401,403`). A request reserves its unit before it
     * runs and gets it back when its response does not count, so concurrent requests never exceed the limit. Applies
     * to HTTP requests (`paths` policies and annotated resource methods); other calls always count. Not with
     * `algorithm=concurrency`.
     */
    @WithDefault("all")
    List<String> count();

    /**
     * A lock-out: once this policy denies a key, every request on that key is denied for this long (`Retry-After` and
     * the `RateLimit` field's `t` say when it ends), whatever its algorithm would admit meanwhile. Stored beside the key
     * in Redis, so every instance sees it; `RateLimiter.reset` lifts it. From 1 ms to 366 days. Not with `mode=shadow`
     * or `algorithm=concurrency`. No lock-out when not set.
     */
    Optional<Duration> blockFor();

    /**
     * Whether a key may have values of its own, set at run time through `RateLimiter.setOverride` (a customer's limit
     * raised today, without a deploy): stored beside the key in Redis and read by the decision in the same call, so
     * every instance applies an override from its next decision on. Costs a Redis read per decision of this policy,
     * and its denials are never held in the deny cache.
     */
    @WithDefault("false")
    boolean overrides();

    /**
     * Quota leasing for hot keys: `off` (every call decided in Redis), `auto` (slices of at most a tenth of the
     * capacity) or the most units of one slice (at least 8). A key this instance uses at least 8 units of within
     * 100 ms is given a slice of its budget in one Redis call (charged there); calls are then admitted from it without a Redis call, and what it did not use
     * is given back when it ends (100 ms at most, never past its window for `fixed-window` and
     * `sliding-window-counter`), when the key cools down or when the application stops. Bound: beyond what the policy
     * admits exactly, at most the units leased out and not yet used, across all instances (zero for the window
     * algorithms). Applies to calls that check this policy alone and take no reservation; has no effect with
     * `backend=local`. Not with `algorithm=concurrency` or `sliding-window-log`, nor with `count` other than `all`.
     */
    @WithDefault("off")
    String lease();

    /**
     * How long a call this policy would deny waits for admission instead of being denied; a call whose admission lies
     * further away is denied at once, as without it. The bucket algorithms give turns: the call is charged at once and
     * goes on at the instant its units come, so waiters on a key are served in the order Redis charged them, across
     * instances. The window algorithms decide the call again when the denial says units are back (its
     * `Retry-After`), within this bound from the first attempt. For outbound calls to a partner's API (the eleventh call of 10 per
     * second waits its turn) and for HTTP requests that would rather be slow than refused. The wait holds no thread:
     * `Uni`, `CompletionStage`, `Multi`, `suspend` methods and HTTP requests wait on a timer; a plain method waits on
     * its worker or virtual thread (one that runs on an event loop, such as a non-blocking `@ConsumeEvent` consumer,
     * fails the build). From 1 ms to 1 h.
     * Not with `algorithm=concurrency` or `mode=shadow`. No wait when not set.
     */
    Optional<Duration> maxWait();

    /**
     * Client addresses this policy never counts: CIDR blocks (`10.0.0.0/8`, `fd00::/8`) and single addresses
     * (`127.0.0.1`, `::1`), matched against the address the `ip` key derives (behind trusted proxies, what the nearest
     * of them saw). Their requests are neither charged nor denied by this policy and carry none of its headers. An
     * `Exemption` bean of the application can exempt requests by anything else (a header, a role).
     */
    Optional<List<String>> exemptAddresses();

    /**
     * Tiers of this policy, by name: each its own limit, window or burst, the rest (algorithm, key, Redis key)
     * the policy's. The application's `PlanResolver` bean says which plan a request is on; the policy's own
     * values are the base plan.
     */
    @ConfigDocMapKey("plan-name")
    Map<String, PlanConfig> plans();

    /**
     * One plan of a policy: what it sets replaces the policy's value, what it leaves unset is the policy's.
     */
    interface PlanConfig {
        /**
         * Units admitted per window on this plan, from 1 to 10,000,000. Defaults to the policy's limit.
         */
        OptionalInt limit();

        /**
         * The window on this plan, from 1 ms to 366 days. Defaults to the policy's window.
         */
        Optional<Duration> window();

        /**
         * The burst on this plan (bucket algorithms). Defaults to the policy's burst if it sets one, else to this
         * plan's limit.
         */
        OptionalInt burst();
    }
}
