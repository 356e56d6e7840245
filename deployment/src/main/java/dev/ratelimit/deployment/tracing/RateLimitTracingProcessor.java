package dev.ratelimit.deployment.tracing;

import dev.ratelimit.runtime.config.RateLimitBuildTimeConfig;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;

/**
 * Tracing of decisions, only when the application has OpenTelemetry tracing (the capability quarkus-opentelemetry
 * provides while {@code quarkus.otel.traces.enabled} holds) and {@code quarkus.ratelimit.tracing.enabled} is true.
 */
class RateLimitTracingProcessor {

    /** The one runtime class referencing OpenTelemetry, named rather than loaded: its API may be absent. */
    static final String OPEN_TELEMETRY_TRACING = "dev.ratelimit.runtime.tracing.OpenTelemetryTracing";

    /**
     * Registers {@code OpenTelemetryTracing} as a bean. Without OpenTelemetry it is never registered, so no
     * OpenTelemetry class is loaded and the limiter traces on the no-op, in JVM mode and in native executables alike
     * (a bean referring to absent classes would fail a native build).
     */
    @BuildStep
    void tracing(Capabilities capabilities, RateLimitBuildTimeConfig config, BuildProducer<AdditionalBeanBuildItem> beans) {
        if (config.tracingEnabled() && capabilities.isPresent(Capability.OPENTELEMETRY_TRACER)) {
            beans.produce(AdditionalBeanBuildItem.builder().addBeanClasses(OPEN_TELEMETRY_TRACING).setUnremovable()
                    .build());
        }
    }
}
