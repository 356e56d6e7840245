package dev.ratelimit.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

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
     * The prefix of every Redis key the extension writes: `prefix:{identity}:policy`.
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
        List<String> headers();

        /**
         * What a `header:Name` policy does when the request lacks the header: `ip` counts it
         * against the client address, `deny` answers 429.
         */
        @WithDefault("ip")
        String missingHeader();

        /**
         * IPv6 clients are grouped by this prefix length (a client usually controls a whole /64),
         * so one client cannot escape its limit by rotating addresses. IPv4 addresses are used
         * whole.
         */
        @WithDefault("64")
        int ipv6PrefixLength();
    }

    /**
     * One policy.
     */
    interface PolicyConfig {
        /**
         * The algorithm: `fixed-window`, `sliding-window-log`, `sliding-window-counter`,
         * `token-bucket`, `leaky-bucket` or `gcra`.
         */
        @WithDefault("token-bucket")
        String algorithm();

        /**
         * Requests admitted per window. Must be positive.
         */
        OptionalInt limit();

        /**
         * The window, e.g. `1s`, `1m`, `1h`. Must be positive.
         */
        Optional<Duration> window();

        /**
         * For bucket algorithms (`token-bucket`, `leaky-bucket`, `gcra`): how many units an idle
         * key admits at once. Defaults to the limit.
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
         * permission paths: an exact path or a prefix ending in `/*`.
         */
        Optional<List<String>> paths();

        /**
         * HTTP methods the `paths` apply to; all methods when not set.
         */
        Optional<List<String>> methods();

        /**
         * `enforce` denies over-limit requests; `shadow` decides and reports (headers, metrics, a
         * DEBUG log) but never denies, for dark-launching a limit.
         */
        @WithDefault("enforce")
        String mode();

        /**
         * Overrides `quarkus.ratelimit.on-failure` for this policy.
         */
        Optional<FailureMode> onFailure();
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

    /**
     * Behaviour when the backend fails.
     */
    enum FailureMode {
        /** Admit the request. */
        FAIL_OPEN,
        /** Deny the request. */
        FAIL_CLOSED,
        /** Decide with the in-process limiter. */
        LOCAL
    }
}
