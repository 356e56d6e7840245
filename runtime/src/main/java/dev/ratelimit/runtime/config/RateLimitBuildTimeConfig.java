package dev.ratelimit.runtime.config;

import java.util.Optional;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;

/**
 * Rate limiting settings fixed at build time.
 */
@ConfigMapping(prefix = "quarkus.ratelimit")
@ConfigRoot(phase = ConfigPhase.BUILD_AND_RUN_TIME_FIXED)
public interface RateLimitBuildTimeConfig {

    /**
     * Redis client selection.
     */
    RedisClient redis();

    /**
     * Whether a readiness check for the rate-limit backend is added when the application has
     * `quarkus-smallrye-health` (it is then listed under `/q/health/ready`).
     */
    @io.smallrye.config.WithName("health.enabled")
    @io.smallrye.config.WithDefault("true")
    boolean healthEnabled();

    /**
     * Whether each decision is recorded on the current trace when the application has OpenTelemetry tracing
     * (`quarkus-opentelemetry`): an event named `ratelimit.decision` on the current span, or a span of its own with
     * `quarkus.ratelimit.tracing.span-per-decision`. Without OpenTelemetry this setting has no effect and nothing
     * of OpenTelemetry is loaded.
     */
    @io.smallrye.config.WithName("tracing.enabled")
    @io.smallrye.config.WithDefault("true")
    boolean tracingEnabled();

    /**
     * Whether every rate-limited operation of the OpenAPI document gets a `429` response (with `Retry-After`, the
     * rate-limit headers and the problem body) when the application has `quarkus-smallrye-openapi` and Quarkus REST.
     * `false` leaves the document as SmallRye OpenAPI generates it.
     */
    @io.smallrye.config.WithName("openapi.enabled")
    @io.smallrye.config.WithDefault("true")
    boolean openapiEnabled();

    /**
     * The operators' endpoint on the management interface.
     */
    Admin admin();

    /**
     * The operators' endpoint: under `<management root>/ratelimit/` on the management interface
     * (`quarkus.management.enabled=true`), each operation allowed to an authenticated caller with a role
     * (`quarkus.management.auth.enabled=true` and a mechanism, such as `quarkus.management.auth.basic=true`).
     */
    interface Admin {
        /**
         * Whether the endpoint is served: `GET .../ratelimit/policies` (the policies and their values),
         * `GET`/`DELETE .../ratelimit/policies/<policy>/keys/<identity>` (a key's state without charging it / a reset),
         * `PUT`/`DELETE .../ratelimit/policies/<policy>/keys/<identity>/override` (a key's own values) and
         * `GET .../ratelimit/policies/<policy>/limited` (the keys it denied most lately). Off by default; when on, the
         * build fails unless the management interface and its authentication are enabled.
         */
        @io.smallrye.config.WithDefault("false")
        boolean enabled();

        /** The role allowed to read: the policies, a key's state, the keys limited lately. */
        @io.smallrye.config.WithDefault("ratelimit-viewer")
        String readRole();

        /** The role allowed to change keys (reset, set and clear overrides), and to read. */
        @io.smallrye.config.WithDefault("ratelimit-admin")
        String writeRole();
    }

    /**
     * Redis client selection.
     */
    interface RedisClient {
        /**
         * The name of the Quarkus Redis client to use (its settings are `quarkus.redis."client-name".*`);
         * the default client when not set. Fixed at build time because the client bean is created
         * for it.
         */
        Optional<String> clientName();
    }
}
