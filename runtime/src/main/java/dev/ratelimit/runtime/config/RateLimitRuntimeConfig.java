package dev.ratelimit.runtime.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.PolicyMode;
import io.quarkus.runtime.annotations.ConfigDocMapKey;
import io.quarkus.runtime.annotations.ConfigDocSection;
import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Rate limiting configuration. Policy values are read at start-up, so limits and windows can change
 * without a rebuild; policy names used by {@code @RateLimit} must exist at build time.
 */
@ConfigMapping(prefix = "quarkus.ratelimit")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface RateLimitRuntimeConfig {

    /**
     * Where decisions are taken: `redis` (shared by every instance) or `local` (in-process, per
     * instance). In dev mode with no Redis configured the extension uses `local` and says so once.
     */
    @WithDefault("redis")
    Backend backend();

    /**
     * What happens when Redis fails or times out: `fail-open` admits, `fail-closed` denies,
     * `local` decides with the in-process limiter until Redis is back. Policies may override it.
     */
    @WithDefault("local")
    FailureMode onFailure();

    /**
     * The prefix of every Redis key the extension writes: `prefix:{identity}:policy` (a `concurrency` policy's keys end
     * in `:in-flight`).
     */
    @WithDefault("rl")
    String keyPrefix();

    /**
     * Redis access.
     */
    Redis redis();

    /**
     * HTTP responses and keys.
     */
    Http http();

    /**
     * The HTTP status of a request denied because Redis failed and the failure mode is `fail-closed`:
     * `429` (Too Many Requests, the same as a real denial) or `503` (Service Unavailable, which tells
     * clients and monitoring that the limiter, not their usage, is the problem). Both carry `Retry-After`.
     */
    @WithDefault("429")
    int failClosedStatus();

    /**
     * The circuit breaker around the Redis backend.
     */
    CircuitBreakerConfig circuitBreaker();

    /**
     * The local cache of recent denials.
     */
    DenyCacheConfig denyCache();

    /**
     * The readiness check (with `quarkus-smallrye-health`).
     */
    HealthConfig health();

    /**
     * The readiness check.
     */
    interface HealthConfig {
        /**
         * Whether Redis being unreachable makes the application not ready (`DOWN`). By default the check stays `UP`
         * and reports the outage and what decides meanwhile (the failure mode): with `on-failure=local` or `fail-open`
         * the application still serves, and taking every instance out of rotation at once would turn a Redis outage
         * into a full one. Set it when limits must never go unenforced by Redis (with `fail-closed`, say).
         */
        @WithDefault("false")
        boolean downOnOutage();
    }

    /**
     * Tracing of decisions (with `quarkus-opentelemetry`).
     */
    TracingConfig tracing();

    /**
     * Tracing of decisions.
     */
    interface TracingConfig {
        /**
         * Whether each decision gets a span of its own, named `ratelimit.decision`, a child of the span current when
         * it was asked for, lasting from the request for the decision to the decision (the Redis round trip
         * included), with the attributes the `ratelimit.decision` event carries otherwise. Off by default: an event
         * on the current span says the same at no span's cost. A decision made outside any span starts no span.
         */
        @WithDefault("false")
        boolean spanPerDecision();
    }

    /**
     * The in-process limiter (`backend=local`, `on-failure=local`, dev mode without Redis).
     */
    LocalConfig local();

    /**
     * The policies, by name.
     */
    @ConfigDocMapKey("policy-name")
    @ConfigDocSection
    Map<String, PolicyConfig> policies();

    /**
     * Redis access.
     */
    interface Redis {
        /**
         * How long one decision may wait for Redis before the failure mode applies.
         */
        @WithDefault("250ms")
        Duration timeout();

        /**
         * Whether to `SCRIPT LOAD` the scripts when the application starts (otherwise the first
         * call loads them through the `EVALSHA`/`EVAL` fallback).
         */
        @WithDefault("true")
        boolean preloadScripts();

        /**
         * Whether decisions call Redis functions (`FCALL`, Redis 7.0 and later) where Redis takes them. The
         * extension then loads its scripts as one function library (`FUNCTION LOAD`, named `ratelimit_` and a
         * hash of its code, so that versions sharing a Redis each keep their own) when the application starts,
         * and a decision runs only its own work, where a script (`EVALSHA`) first defines every function of the
         * scripts again (the performance page measures the difference). Until the library is loaded (a load that
         * failed, Redis not being up yet say, is tried again a second later), where Redis refuses it (before 7.0,
         * without the right to load or call functions, behind a proxy that does not pass them; logged once at
         * INFO), and on a Redis Cluster, decisions run as scripts. A library Redis loses (a restart without
         * persistence, `FUNCTION FLUSH`) is loaded again by the next call while decisions go on as scripts. `false`:
         * always scripts, nothing loaded into Redis but scripts.
         */
        @WithDefault("true")
        boolean functions();

        /**
         * Most decisions sent to Redis in one script run. When decisions arrive while earlier ones
         * are still waiting for Redis, those made on one event loop in the same turn go together:
         * Redis parses one command and writes one reply for all of them, and reads and writes a key
         * once however many of them touch it (the performance page measures the gain). Identical
         * decisions next to each other that charge one policy (one key, one cost, not a concurrency
         * policy: a burst on a hot key) are sent once and count once here, up to 16 times this many
         * decisions in a run: Redis decides such a burst in two or three steps whatever its size. A run
         * holding any other decision takes at most this many decisions. A decision made while nothing is in flight is
         * sent at once, alone. Each decision is still atomic and all-or-nothing. `1` sends every
         * decision alone. Not used with a Redis Cluster, where a script run may only touch one slot.
         */
        @WithDefault("16")
        int maxBatch();

        /**
         * Most connections the limiter opens to Redis and pipelines its decisions on (any number
         * of decisions in flight on each). Unset: one per event loop, opened on that event loop,
         * so that a decision made there is sent and its reply read on the same thread. With fewer
         * connections than event loops, the loops beyond share the connections of others, and
         * their decisions go to the thread of that loop and back. The connections are opened with
         * the Redis client's options (hosts, password, TLS, standalone, sentinel or cluster; on a
         * cluster each one is a connection per master) but are not taken from its pool: they do
         * not count against its `max-pool-size`.
         */
        OptionalInt connections();
    }

    /**
     * The circuit breaker around the Redis backend.
     */
    interface CircuitBreakerConfig {
        /**
         * Whether a Redis outage opens a circuit breaker, so that the failure modes answer at once
         * instead of every request waiting for the timeout.
         */
        @WithDefault("true")
        boolean enabled();

        /**
         * How many consecutive failed or timed-out Redis calls open the breaker. It does not open
         * while some call succeeded within the last `quarkus.ratelimit.redis.timeout`: a Redis that
         * answers most calls but lets a few time out is still there.
         */
        @WithDefault("5")
        int failureThreshold();

        /**
         * How long the breaker stays open; then one request probes Redis, and closes the breaker
         * if it succeeds.
         */
        @WithDefault("5s")
        Duration openDuration();
    }

    /**
     * The local cache of recent denials.
     */
    interface DenyCacheConfig {
        /**
         * Whether a key that Redis denied is denied again in process, without a Redis call, until
         * the time Redis reported (less a safety margin). It never denies what Redis would admit,
         * unless Redis keys are changed behind the extension's back (a key deleted to reset it).
         */
        @WithDefault("true")
        boolean enabled();

        /**
         * The most denials held; when full, expired entries and then those closest to expiry are
         * dropped.
         */
        @WithDefault("10000")
        int maxEntries();

        /**
         * Subtracted from each cached denial's duration, on top of 0.1% of it, to absorb the
         * millisecond rounding of Redis replies and clock-rate differences between hosts.
         */
        @WithDefault("5ms")
        Duration safetyMargin();
    }

    /**
     * The in-process limiter.
     */
    interface LocalConfig {
        /**
         * The most keys whose state the in-process limiter holds, per instance. When a new key takes it
         * over this, expired state is swept and then keys are forgotten until about nine tenths are left:
         * first those that had used the smallest share of their limit at their last admitted request
         * (forgetting a key gives it back what it had used), last those whose last request was denied.
         * A key's state takes about 170 bytes with a 24-character key, the sliding window log's about
         * 250 plus 8 to 16 per request it holds.
         */
        @WithDefault("100000")
        int maxKeys();
    }

    /**
     * HTTP responses and keys.
     */
    interface Http {
        /**
         * Which rate-limit header families responses carry: `ietf` (`RateLimit-Policy` and
         * `RateLimit` of draft-ietf-httpapi-ratelimit-headers), `legacy` (`X-RateLimit-Limit`,
         * `-Remaining`, `-Reset`), or `none`. `Retry-After` is always sent on a 429.
         */
        @WithDefault("ietf,legacy")
        List<HeaderFamily> headers();

        /**
         * What a `header:Name` policy does when the request lacks the header: `ip` counts it
         * against the client address, `deny` answers 429.
         */
        @WithDefault("ip")
        MissingHeader missingHeader();

        /**
         * IPv6 clients are grouped by this prefix length (a client usually controls a whole /64),
         * so one client cannot escape its limit by rotating addresses. IPv4 addresses are used
         * whole.
         */
        @WithDefault("64")
        int ipv6PrefixLength();

        /**
         * Adds the `pk` parameter of draft-ietf-httpapi-ratelimit-headers to each `RateLimit` member: a partition key
         * naming the quota the request was counted against without showing it (the first 9 bytes of the SHA-256 of
         * the identity, as a byte sequence, e.g. `pk=:3q2+7wAbCdEf:`), so that a client can tell the quotas it shares
         * from its own. Off by default.
         */
        @WithDefault("false")
        boolean partitionKey();
    }

    /**
     * One policy.
     */
    interface PolicyConfig {
        /** The algorithm of a policy that names none (the build reads unmapped values with the same defaults). */
        String DEFAULT_ALGORITHM = "token-bucket";
        /** The key of a policy that names none. */
        String DEFAULT_KEY = "ip";
        /** The mode of a policy that names none. */
        String DEFAULT_MODE = "enforce";

        /**
         * The algorithm: `fixed-window`, `sliding-window-log`, `sliding-window-counter`, `token-bucket`, `leaky-bucket`,
         * `gcra`, or `concurrency` (at most `limit` requests in flight per key; `window` is the longest a slot is held
         * when its instance dies before freeing it).
         */
        @WithDefault(DEFAULT_ALGORITHM)
        String algorithm();

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
        @WithDefault(DEFAULT_KEY)
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
        @WithDefault(DEFAULT_MODE)
        PolicyMode mode();

        /**
         * Overrides `quarkus.ratelimit.on-failure` for this policy.
         */
        Optional<FailureMode> onFailure();

        /**
         * Tiers of this policy, by name: each its own limit, window or burst, the rest (algorithm, key, Redis key)
         * the policy's. The application's `PlanResolver` bean says which plan a request is on; the policy's own
         * values are the base plan.
         */
        @ConfigDocMapKey("plan-name")
        Map<String, PlanConfig> plans();
    }

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

    /**
     * Rate-limit header families.
     */
    enum HeaderFamily {
        /** {@code RateLimit-Policy} and {@code RateLimit}, as draft-ietf-httpapi-ratelimit-headers defines them. */
        IETF,
        /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset}. */
        LEGACY,
        /** No rate-limit headers ({@code Retry-After} is still sent on a 429). */
        NONE
    }

    /**
     * What a {@code header:Name} key does when the request lacks the header.
     */
    enum MissingHeader {
        /** Counts the request against the client address. */
        IP,
        /** Answers 429. */
        DENY
    }

    /**
     * Decision backends.
     */
    enum Backend {
        /** Redis, shared by every instance. */
        REDIS,
        /** In-process, per instance. */
        LOCAL
    }
}
