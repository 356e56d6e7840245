package dev.ratelimit.runtime.config;

import java.time.Duration;

import io.smallrye.config.WithDefault;

/**
 * The circuit breaker around the Redis backend.
 */
public interface CircuitBreakerConfig {
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
