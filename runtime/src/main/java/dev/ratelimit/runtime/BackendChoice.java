package dev.ratelimit.runtime;

import dev.ratelimit.runtime.config.RateLimitRuntimeConfig;
import io.quarkus.runtime.LaunchMode;

/**
 * Which backend decides, from {@code quarkus.ratelimit.backend}, the launch mode and whether the application has a
 * Redis. In dev and test mode a Redis comes from configuration or from Quarkus's Redis Dev Services (which sets
 * {@code quarkus.redis.hosts} when it starts a container); without either, limits are decided in process rather
 * than failing every decision against a Redis that is not there. In production the configuration decides alone: a
 * missing Redis there is an outage, handled by the failure mode.
 */
public enum BackendChoice {
    /** Redis decides. */
    REDIS,
    /** In process, as configured ({@code quarkus.ratelimit.backend=local}). */
    LOCAL,
    /** In process, because dev or test mode found no Redis. */
    LOCAL_WITHOUT_REDIS;

    public static BackendChoice of(RateLimitRuntimeConfig.Backend configured, LaunchMode mode,
            boolean redisConfigured) {
        if (configured == RateLimitRuntimeConfig.Backend.LOCAL) {
            return LOCAL;
        }
        if (mode != LaunchMode.NORMAL && !redisConfigured) {
            return LOCAL_WITHOUT_REDIS;
        }
        return REDIS;
    }

    /** What the application logs, once, when it decides in process for want of a Redis. */
    public static String withoutRedisMessage(LaunchMode mode, String hostsProperty) {
        String session = mode == LaunchMode.TEST ? "this test run" : "this dev-mode session";
        return "No Redis configured (" + hostsProperty + ") and none from Dev Services (turned off, or no container "
                + "runtime): rate limits are decided in process for " + session + ". Set " + hostsProperty
                + ", or start a container runtime, to share limits between instances.";
    }
}
