package dev.ratelimit.deployment;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.jandex.AnnotationTransformation;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.runtime.DefaultRateLimiter;
import dev.ratelimit.runtime.HttpLimits;
import dev.ratelimit.runtime.KeyResolution;
import dev.ratelimit.runtime.RateLimitBuildTimeConfig;
import dev.ratelimit.runtime.RateLimitFilter;
import dev.ratelimit.runtime.RateLimitInterceptor;
import dev.ratelimit.runtime.RateLimitProducer;
import dev.ratelimit.runtime.RateLimitRecorder;
import dev.ratelimit.runtime.metrics.MicrometerMetrics;
import dev.ratelimit.runtime.redis.LuaScriptRegistry;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.arc.deployment.AnnotationsTransformerBuildItem;
import io.quarkus.arc.deployment.SyntheticBeanBuildItem;
import io.quarkus.arc.deployment.UnremovableBeanBuildItem;
import io.quarkus.arc.deployment.ValidationPhaseBuildItem;
import io.quarkus.arc.deployment.ValidationPhaseBuildItem.ValidationErrorBuildItem;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.ExecutionTime;
import io.quarkus.deployment.annotations.Record;
import io.quarkus.deployment.builditem.AdditionalIndexedClassesBuildItem;
import io.quarkus.deployment.builditem.CombinedIndexBuildItem;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.HotDeploymentWatchedFileBuildItem;
import io.quarkus.deployment.metrics.MetricsCapabilityBuildItem;
import io.quarkus.redis.deployment.client.RequestedRedisClientBuildItem;
import io.quarkus.runtime.metrics.MetricsFactory;

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
                .addBeanClasses(RateLimitProducer.class, HttpLimits.class, KeyResolution.class, RateLimitInterceptor.class,
                        RateLimit.class, RateLimit.List.class)
                .setUnremovable().build();
    }

    /** The JAX-RS filter exists only where Quarkus REST does (its classes are an optional dependency). */
    @BuildStep
    void restFilter(Capabilities capabilities, BuildProducer<AdditionalIndexedClassesBuildItem> indexed) {
        if (capabilities.isPresent(Capability.REST)) {
            indexed.produce(new AdditionalIndexedClassesBuildItem(RateLimitFilter.class.getName()));
        }
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
    void validate(ValidationPhaseBuildItem validationPhase, List<RateLimitedMethodBuildItem> methods,
            BuildProducer<ValidationErrorBuildItem> errors) {
        List<Throwable> problems = RateLimitValidator.validate(methods, new BuildTimePolicies(ConfigProvider.getConfig()));
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
                recorder.addMethod(key, s.policy(), s.cost(), s.key());
            }
        }
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

    /** Reads the extension's Lua sources from the runtime module (they are never read at run time). */
    @BuildStep
    void readScripts(BuildProducer<LuaScriptSourceBuildItem> sources, BuildProducer<HotDeploymentWatchedFileBuildItem> watched) {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        for (String path : LuaScripts.sourcePaths()) {
            try (InputStream in = cl.getResourceAsStream(path)) {
                if (in == null) {
                    throw new IllegalStateException("Lua script " + path + " is missing from the quarkus-ratelimit jar");
                }
                sources.produce(new LuaScriptSourceBuildItem(path, new String(in.readAllBytes(), StandardCharsets.UTF_8)));
            } catch (IOException e) {
                throw new IllegalStateException("Cannot read Lua script " + path, e);
            }
            watched.produce(new HotDeploymentWatchedFileBuildItem(path));
        }
    }

    /** Checks every source and composes and hashes the scripts; all broken files are reported together. */
    @BuildStep
    LuaScriptRegistryBuildItem composeScripts(List<LuaScriptSourceBuildItem> sourceItems) {
        Map<String, String> sources = new TreeMap<>();
        for (LuaScriptSourceBuildItem s : sourceItems) {
            sources.put(s.path(), s.body());
        }
        List<String> errors = new ArrayList<>();
        LuaScripts.check(sources, errors);
        if (!errors.isEmpty()) {
            throw new IllegalStateException("Invalid rate-limit Lua scripts:\n  - " + String.join("\n  - ", errors));
        }
        Map<String, String> scripts = LuaScripts.compose(sources);
        for (Map.Entry<String, String> e : scripts.entrySet()) {
            // composition must parse too (a file may be valid alone but not joined with the others)
            String problem = LuaScripts.syntaxProblem(e.getKey(), e.getValue());
            if (problem != null) {
                errors.add("Lua script " + e.getKey() + " (composed) is broken: " + problem);
            }
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException("Invalid rate-limit Lua scripts:\n  - " + String.join("\n  - ", errors));
        }
        return new LuaScriptRegistryBuildItem(scripts, LuaScripts.shas(scripts));
    }

    @BuildStep
    @Record(ExecutionTime.STATIC_INIT)
    SyntheticBeanBuildItem scriptRegistry(LuaScriptRegistryBuildItem registry, RateLimitRecorder recorder) {
        return SyntheticBeanBuildItem.configure(LuaScriptRegistry.class)
                .scope(Singleton.class)
                .supplier(recorder.scripts(new TreeMap<>(registry.bodies()), new TreeMap<>(registry.shas())))
                .unremovable()
                .done();
    }
}
