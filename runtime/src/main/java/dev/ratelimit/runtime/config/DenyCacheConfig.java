package dev.ratelimit.runtime.config;

import java.time.Duration;

import io.smallrye.config.WithDefault;

/**
 * The local cache of recent denials.
 */
public interface DenyCacheConfig {
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
