package dev.ratelimit.runtime.config;

import java.util.Map;

import dev.ratelimit.runtime.policy.FailureMode;
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
     * instance), or the name of a backend another extension contributes. In dev mode with no Redis
     * configured the extension uses `local` and says so once.
     */
    @WithDefault("redis")
    String backend();

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
    RedisAccessConfig redis();

    /**
     * HTTP responses and keys.
     */
    HttpConfig http();

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
     * Decision backends.
     */
}
