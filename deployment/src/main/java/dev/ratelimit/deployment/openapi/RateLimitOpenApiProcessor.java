package dev.ratelimit.deployment.openapi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.microprofile.config.ConfigProvider;

import dev.ratelimit.deployment.RateLimitedMethodBuildItem;
import dev.ratelimit.runtime.config.RateLimitBuildTimeConfig;
import dev.ratelimit.runtime.openapi.RateLimitOpenApiRecorder;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.ExecutionTime;
import io.quarkus.deployment.annotations.Record;
import io.quarkus.deployment.builditem.AdditionalIndexedClassesBuildItem;
import io.quarkus.deployment.builditem.CombinedIndexBuildItem;
import io.quarkus.vertx.http.deployment.HttpRootPathBuildItem;

/**
 * The OpenAPI integration: with SmallRye OpenAPI and Quarkus REST, every limited operation of the document gets its
 * 429. The work is done when the application starts, by {@code RateLimitOpenApiFilter}, a SmallRye OpenAPI filter of
 * the start-up stage (the policies' {@code paths} are runtime configuration); the build finds the annotated
 * operations and puts the filter where SmallRye OpenAPI looks for filters, the index.
 */
class RateLimitOpenApiProcessor {

    /** By name: loading the class would need the OpenAPI API, which the application may not have. */
    static final String FILTER = "dev.ratelimit.runtime.openapi.RateLimitOpenApiFilter";

    /** Whether the document is to be completed. */
    static boolean active(Capabilities capabilities, RateLimitBuildTimeConfig config) {
        return config.openapiEnabled() && capabilities.isPresent(Capability.SMALLRYE_OPENAPI)
                && capabilities.isPresent(Capability.REST);
    }

    /** SmallRye OpenAPI runs the {@code @OpenApiFilter} classes of the index, each instantiated at start-up. */
    @BuildStep
    void filter(Capabilities capabilities, RateLimitBuildTimeConfig config,
            BuildProducer<AdditionalIndexedClassesBuildItem> indexed) {
        if (active(capabilities, config)) {
            indexed.produce(new AdditionalIndexedClassesBuildItem(FILTER));
        }
    }

    /** The annotated operations, by the method and path the document gives them. */
    @BuildStep
    @Record(ExecutionTime.STATIC_INIT)
    void annotatedOperations(Capabilities capabilities, RateLimitBuildTimeConfig config, CombinedIndexBuildItem index,
            List<RateLimitedMethodBuildItem> methods, HttpRootPathBuildItem rootPath, RateLimitOpenApiRecorder recorder) {
        if (!active(capabilities, config)) {
            return;
        }
        Map<String, List<String>> limited = new LinkedHashMap<>();
        for (RateLimitedMethodBuildItem m : methods) {
            List<String> policies = new ArrayList<>();
            for (RateLimitedMethodBuildItem.Spec s : m.specs()) {
                if (!policies.contains(s.policy())) {
                    policies.add(s.policy());
                }
            }
            limited.put(RestOperations.key(m.method()), policies);
        }
        RestOperations operations = new RestOperations(index.getIndex(), limited);
        String restPath = ConfigProvider.getConfig().getOptionalValue("quarkus.rest.path", String.class).orElse("/");
        recorder.clear();
        operations.limitedOperations(operations.contextRoot(rootPath.getRootPath(), restPath))
                .forEach((operation, policies) -> {
                    int space = operation.indexOf(' ');
                    recorder.operation(operation.substring(0, space), operation.substring(space + 1), policies);
                });
    }
}
