package dev.ratelimit.deployment;

import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.jandex.AnnotationTransformation;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.deployment.validation.BuildTimePolicies;
import dev.ratelimit.deployment.validation.RateLimitValidator;
import dev.ratelimit.runtime.RateLimitProducer;
import dev.ratelimit.runtime.RateLimitRecorder;
import dev.ratelimit.runtime.backend.local.LocalBackendProvider;
import dev.ratelimit.runtime.backend.redis.RedisBackendProvider;
import dev.ratelimit.runtime.admin.AdminEndpoint;
import dev.ratelimit.runtime.config.RateLimitBuildTimeConfig;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.http.HttpLimits;
import dev.ratelimit.runtime.http.Settlements;
import dev.ratelimit.runtime.http.RateLimitFilter;
import dev.ratelimit.runtime.interceptor.RateLimitInterceptor;
import dev.ratelimit.runtime.metrics.MicrometerMetrics;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.arc.deployment.AnnotationsTransformerBuildItem;
import io.quarkus.arc.deployment.UnremovableBeanBuildItem;
import io.quarkus.arc.deployment.ValidationPhaseBuildItem.ValidationErrorBuildItem;
import io.quarkus.arc.deployment.ValidationPhaseBuildItem;
import io.quarkus.arc.processor.DotNames;
import io.quarkus.bootstrap.classloading.QuarkusClassLoader;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.ExecutionTime;
import io.quarkus.deployment.annotations.Record;
import io.quarkus.deployment.builditem.AdditionalIndexedClassesBuildItem;
import io.quarkus.deployment.builditem.CombinedIndexBuildItem;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.ShutdownListenerBuildItem;
import io.quarkus.deployment.metrics.MetricsCapabilityBuildItem;
import io.quarkus.redis.deployment.client.RequestedRedisClientBuildItem;
import io.quarkus.runtime.metrics.MetricsFactory;
import io.quarkus.smallrye.health.deployment.spi.HealthBuildItem;

/**
 * Build steps of the rate-limit extension.
 */
class RateLimitProcessor {

    static final String FEATURE = "ratelimit";

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    @BuildStep
    AdditionalBeanBuildItem beans() {
        return AdditionalBeanBuildItem.builder()
                .addBeanClasses(RateLimitProducer.class, HttpLimits.class, RateLimitInterceptor.class,
                        Settlements.class, RateLimit.class, RateLimit.List.class)
                .setUnremovable().build();
    }

    /** The backends of this extension: Redis, shared by every instance, and in process. */
    @BuildStep
    void backends(BuildProducer<RateLimitBackendBuildItem> backends) {
        backends.produce(new RateLimitBackendBuildItem(RedisBackendProvider.NAME, RedisBackendProvider.class.getName()));
        backends.produce(new RateLimitBackendBuildItem(LocalBackendProvider.NAME, LocalBackendProvider.class.getName()));
    }

    /**
     * Every backend contributed becomes a bean the limiter finds among its providers; two with one name fail the
     * build, naming both.
     */
    @BuildStep
    void backendProviders(List<RateLimitBackendBuildItem> backends, BuildProducer<AdditionalBeanBuildItem> beans) {
        Map<String, String> byName = new TreeMap<>();
        for (RateLimitBackendBuildItem b : backends) {
            String other = byName.putIfAbsent(b.name(), b.providerClass());
            if (other != null && !other.equals(b.providerClass())) {
                throw new IllegalStateException("Two rate-limit backends are named '" + b.name() + "': " + other
                        + " and " + b.providerClass() + "; quarkus.ratelimit.backend could not tell them apart");
            }
        }
        beans.produce(AdditionalBeanBuildItem.builder().addBeanClasses(byName.values()).setUnremovable().build());
    }

    /** The JAX-RS filter exists only where Quarkus REST does (its classes are an optional dependency). */
    @BuildStep
    void restFilter(Capabilities capabilities, BuildProducer<AdditionalIndexedClassesBuildItem> indexed) {
        if (capabilities.isPresent(Capability.REST)) {
            indexed.produce(new AdditionalIndexedClassesBuildItem(RateLimitFilter.class.getName()));
        }
    }

    /**
     * The readiness check, only when the application has SmallRye Health ({@code RateLimitReadinessCheck} is the one
     * class referencing its API, an optional dependency) and {@code quarkus.ratelimit.health.enabled} is true.
     */
    @BuildStep
    void health(RateLimitBuildTimeConfig config, BuildProducer<HealthBuildItem> checks) {
        // by name: loading the class would need the health API, which the application may not have
        checks.produce(new HealthBuildItem("dev.ratelimit.runtime.health.RateLimitReadinessCheck", config.healthEnabled()));
    }

    /**
     * Micrometer meters, only when the application has Micrometer: {@code MicrometerMetrics} is the one
     * class referencing Micrometer (an optional dependency), and registering it without Micrometer would
     * fail native builds (and the start, once the class is loaded).
     */
    @BuildStep
    void metrics(Optional<MetricsCapabilityBuildItem> metricsCapability, BuildProducer<AdditionalBeanBuildItem> beans) {
        if (metricsCapability.isPresent() && metricsCapability.get().metricsSupported(MetricsFactory.MICROMETER)) {
            beans.produce(AdditionalBeanBuildItem.unremovableOf(MicrometerMetrics.class));
        }
    }

    /**
     * Kotlin suspend functions are decided by {@code KotlinSuspendFunctions}, the one class referring to Kotlin (an
     * optional dependency), registered only when a limited method is one: applications without Kotlin never load it,
     * and their native builds never link it. With kotlinx.coroutines, its subclass {@code CancellableSuspendFunctions}
     * (which refers to it) also sees cancelled coroutines. By name, like the health check: loading the classes here
     * would need Kotlin in the build.
     */
    @BuildStep
    void suspendFunctions(List<RateLimitedMethodBuildItem> methods, BuildProducer<AdditionalBeanBuildItem> beans) {
        if (methods.stream().anyMatch(RateLimitedMethodBuildItem::suspendFunction)) {
            // no bean-defining annotation on either class: the parent of the one registered is no bean
            beans.produce(AdditionalBeanBuildItem.builder()
                    .addBeanClass(QuarkusClassLoader.isClassPresentAtRuntime("kotlinx.coroutines.Job")
                            ? "dev.ratelimit.runtime.interceptor.CancellableSuspendFunctions"
                            : "dev.ratelimit.runtime.interceptor.KotlinSuspendFunctions")
                    .setDefaultScope(DotNames.SINGLETON).setUnremovable().build());
        }
    }

    /**
     * ArC refuses interceptor bindings on private methods during bean discovery, before any validation,
     * which would hide every other problem of the build. Such annotations are removed from ArC's view;
     * the validation (which reads the untransformed index) still reports them, together with the rest.
     */
    @BuildStep
    AnnotationsTransformerBuildItem ignorePrivateTargets() {
        return new AnnotationsTransformerBuildItem(AnnotationTransformation.forMethods()
                .whenMethod(m -> Modifier.isPrivate(m.flags()))
                .transform(ctx -> ctx.remove(a -> a.name().equals(RateLimitAnnotations.RATE_LIMIT)
                        || a.name().equals(RateLimitAnnotations.RATE_LIMIT_LIST))));
    }

    /** Finds every limited method. */
    @BuildStep
    void scan(CombinedIndexBuildItem index, BuildProducer<RateLimitedMethodBuildItem> methods) {
        RateLimitMethodScanner.scan(index.getIndex())
                .forEach((method, specs) -> methods.produce(new RateLimitedMethodBuildItem(method, specs)));
    }

    /** Checks annotations and policies; every problem is reported at once, each naming what to fix. */
    @BuildStep
    void validate(ValidationPhaseBuildItem validationPhase, CombinedIndexBuildItem index,
            List<RateLimitedMethodBuildItem> methods, BuildProducer<ValidationErrorBuildItem> errors) {
        List<Throwable> problems = RateLimitValidator.validate(methods, BuildTimePolicies.read(ConfigProvider.getConfig()),
                index.getIndex());
        if (!problems.isEmpty()) {
            errors.produce(new ValidationErrorBuildItem(problems));
        }
    }

    @BuildStep
    @Record(ExecutionTime.STATIC_INIT)
    void recordMethods(List<RateLimitedMethodBuildItem> methods, RateLimitRecorder recorder) {
        recorder.clearMethods();
        for (RateLimitedMethodBuildItem m : methods) {
            String key = RateLimitMethodScanner.methodKey(m.method());
            for (RateLimitedMethodBuildItem.Spec s : m.specs()) {
                recorder.addMethod(key, s.policy(), s.cost(), s.key(), s.settle());
            }
        }
    }

    /**
     * The operators' endpoint, when enabled: on the management interface, guarded by its authentication; the build
     * fails naming what to enable when either is off (an admin endpoint nobody can reach, or anybody can).
     */
    @BuildStep
    void admin(RateLimitBuildTimeConfig config, BuildProducer<AdditionalBeanBuildItem> beans) {
        if (!config.admin().enabled()) {
            return;
        }
        org.eclipse.microprofile.config.Config c = ConfigProvider.getConfig();
        boolean management = c.getOptionalValue("quarkus.management.enabled", Boolean.class).orElse(false);
        boolean auth = c.getOptionalValue("quarkus.management.auth.enabled", Boolean.class).orElse(false)
                || c.getOptionalValue("quarkus.management.auth.basic", Boolean.class).orElse(false);
        if (!management || !auth) {
            throw new io.quarkus.runtime.configuration.ConfigurationException("quarkus.ratelimit.admin.enabled=true "
                    + "serves the rate-limit admin endpoint on the management interface, to authenticated callers "
                    + "with a role: set " + (management ? "" : "quarkus.management.enabled=true and ")
                    + "quarkus.management.auth.enabled=true with a mechanism (for example "
                    + "quarkus.management.auth.basic=true), or remove quarkus.ratelimit.admin.enabled");
        }
        beans.produce(AdditionalBeanBuildItem.unremovableOf(AdminEndpoint.class));
    }

    /** Leased slices go back when the application begins to stop, while Redis connections are still open. */
    @BuildStep
    @Record(ExecutionTime.RUNTIME_INIT)
    ShutdownListenerBuildItem giveBackLeases(RateLimitRecorder recorder) {
        return new ShutdownListenerBuildItem(recorder.shutdownListener());
    }

    @BuildStep
    UnremovableBeanBuildItem keepLimiter() {
        // looked up programmatically by users and by the interceptor and filter
        return UnremovableBeanBuildItem.beanTypes(RateLimiter.class, DefaultRateLimiter.class);
    }

    /**
     * Asks quarkus-redis-client for a named client; the default client needs no request, as the limiter injects it
     * ({@code Instance<Redis>}) and an injected default client is created like any application's.
     * <p>
     * A request also runs quarkus-redis-client's data-source set-up, which creates the requested client a second time
     * (Quarkus 3.34: {@code RedisDatasourceProcessor} and {@code RedisClientProcessor} both call
     * {@code RedisClientRecorder.initialize}); with Micrometer the second pool's gauges collide with the first's and
     * Micrometer logs a WARN at every start. A named client still needs the request: nothing else makes Quarkus
     * create a client whose settings only exist at run time (and an application's own {@code @RedisClientName}
     * makes quarkus-redis-client request the client the same way).
     */
    @BuildStep
    void redisClient(RateLimitBuildTimeConfig config, BuildProducer<RequestedRedisClientBuildItem> requests) {
        config.redis().clientName().ifPresent(name -> requests.produce(new RequestedRedisClientBuildItem(name)));
    }
}
