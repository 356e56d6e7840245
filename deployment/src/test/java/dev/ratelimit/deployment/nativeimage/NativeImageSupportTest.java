package dev.ratelimit.deployment.nativeimage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.runtime.backend.redis.RedisBackend;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.PolicyMode;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.bootstrap.classloading.ClassLoaderEventListener;
import io.quarkus.builder.BuildContext;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.nativeimage.NativeImageResourceBuildItem;
import io.quarkus.deployment.builditem.nativeimage.NativeImageResourceDirectoryBuildItem;
import io.quarkus.deployment.builditem.nativeimage.NativeImageResourcePatternsBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ReflectiveClassBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ReflectiveMethodBuildItem;
import io.quarkus.deployment.builditem.nativeimage.RuntimeInitializedClassBuildItem;
import io.quarkus.deployment.builditem.nativeimage.RuntimeInitializedPackageBuildItem;
import io.quarkus.test.QuarkusUnitTest;

/**
 * What the extension asks of a native build, pinned down in the JVM suite: the classes that talk to Redis or read
 * clocks are initialised at run time, the ones holding what the build recorded are not, no Lua script is a native
 * resource (the scripts are recorded), and nothing of the extension needs reflection. The application also decides
 * in Redis without reading a script resource at run time.
 */
class NativeImageSupportTest {

    /*
     * The build steps and the class loader listener run in JUnit's class loader, the test in the application's: JDK
     * collections kept in the system properties are the objects both see.
     */
    private static final String SEEN = "ratelimit.test.native.build-items";
    private static final String LUA_READS = "ratelimit.test.native.lua-reads";

    static final String RUNTIME_INITIALIZED = "runtime-initialized classes";
    static final String RUNTIME_INITIALIZED_PACKAGES = "runtime-initialized packages";
    static final String RESOURCES = "native resources";
    static final String REFLECTIVE_CLASSES = "reflective classes";
    static final String REFLECTIVE_METHODS = "reflective methods";

    @SuppressWarnings("unchecked")
    static Map<String, List<String>> seen() {
        return (Map<String, List<String>>) System.getProperties().computeIfAbsent(SEEN,
                k -> new ConcurrentHashMap<String, List<String>>());
    }

    @SuppressWarnings("unchecked")
    static List<String> luaReads() {
        return (List<String>) System.getProperties().computeIfAbsent(LUA_READS, k -> new CopyOnWriteArrayList<String>());
    }

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Limited.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.native-test.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.native-test.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.native-test.key", "global")
            .addClassLoaderEventListener(new ClassLoaderEventListener() {
                @Override
                public void openResourceStream(String resourceName, String classLoaderName) {
                    record(resourceName, classLoaderName);
                }

                @Override
                public void gettingURLFromResource(String resourceName, String classLoaderName) {
                    record(resourceName, classLoaderName);
                }

                private void record(String resourceName, String classLoaderName) {
                    if (resourceName.endsWith(".lua")) {
                        luaReads().add(resourceName + " by " + classLoaderName);
                    }
                }
            })
            .addBuildChainCustomizer(chain -> chain.addBuildStep(NativeImageSupportTest::collect)
                    .consumes(RuntimeInitializedClassBuildItem.class)
                    .consumes(RuntimeInitializedPackageBuildItem.class)
                    .consumes(NativeImageResourceBuildItem.class)
                    .consumes(NativeImageResourcePatternsBuildItem.class)
                    .consumes(NativeImageResourceDirectoryBuildItem.class)
                    .consumes(ReflectiveClassBuildItem.class)
                    .consumes(ReflectiveMethodBuildItem.class)
                    .produces(FeatureBuildItem.class)
                    .build());

    /** Consumes the native build items of the whole build (as the native image build step would). */
    static void collect(BuildContext context) {
        Map<String, List<String>> seen = seen();
        seen.clear();
        seen.put(RUNTIME_INITIALIZED, context.consumeMulti(RuntimeInitializedClassBuildItem.class).stream()
                .map(RuntimeInitializedClassBuildItem::getClassName).toList());
        seen.put(RUNTIME_INITIALIZED_PACKAGES, context.consumeMulti(RuntimeInitializedPackageBuildItem.class).stream()
                .map(RuntimeInitializedPackageBuildItem::getPackageName).toList());
        List<String> resources = new CopyOnWriteArrayList<>();
        context.consumeMulti(NativeImageResourceBuildItem.class).forEach(i -> resources.addAll(i.getResources()));
        context.consumeMulti(NativeImageResourcePatternsBuildItem.class)
                .forEach(i -> resources.addAll(i.getIncludePatterns()));
        context.consumeMulti(NativeImageResourceDirectoryBuildItem.class).forEach(i -> resources.add(i.getPath()));
        seen.put(RESOURCES, resources);
        seen.put(REFLECTIVE_CLASSES, context.consumeMulti(ReflectiveClassBuildItem.class).stream()
                .flatMap(i -> i.getClassNames().stream()).toList());
        seen.put(REFLECTIVE_METHODS, context.consumeMulti(ReflectiveMethodBuildItem.class).stream()
                .map(i -> i.getDeclaringClass() + "#" + i.getName()).toList());
        context.produce(new FeatureBuildItem("ratelimit-native-image-test"));
    }

    @ApplicationScoped
    public static class Limited {
        @RateLimit("native-test")
        public String call() {
            return "ok";
        }
    }

    @Inject
    Limited limited;

    @Inject
    DefaultRateLimiter limiter;

    @Test
    void classesTalkingToRedisOrReadingClocksAreInitialisedAtRunTime() {
        List<String> runtime = seen().get(RUNTIME_INITIALIZED);
        for (String name : List.of("backend.redis.transport.LuaScriptExecutor",
                "backend.redis.RedisBackend", "backend.local.LocalBackend", "resilience.CircuitBreaker",
                "resilience.DenyCache", "core.DefaultRateLimiter")) {
            assertTrue(runtime.contains("dev.ratelimit.runtime." + name), name + " is not initialised at run time");
        }
        // what the build recorded lives in static state and the image heap: initialised at run time, it would be empty
        for (String name : List.of("policy.RateLimitedMethods", "backend.redis.script.LuaScriptRegistry",
                "backend.redis.script.LuaScript",
                "RateLimitRecorder", "policy.RateLimitSpec")) {
            assertClassExists("dev.ratelimit.runtime." + name);
            assertFalse(runtime.contains("dev.ratelimit.runtime." + name), name + " must stay initialised at build time");
        }
        assertEquals(List.of(), seen().get(RUNTIME_INITIALIZED_PACKAGES).stream()
                .filter(p -> p.startsWith("dev.ratelimit")).toList());
    }

    @Test
    void noLuaScriptIsANativeImageResource() {
        List<String> lua = seen().get(RESOURCES).stream()
                .filter(r -> r.contains(".lua") || r.contains("ratelimit")).toList();
        assertEquals(List.of(), lua, "the scripts are recorded at build time, never loaded as resources");
    }

    @Test
    void noClassOfTheExtensionIsRegisteredForReflectionBeyondWhatQuarkusDoesForEveryExtension() {
        List<String> registered = seen().get(REFLECTIVE_CLASSES).stream().filter(c -> c.startsWith("dev.ratelimit.")).toList();
        assertTrue(registered.contains("dev.ratelimit.runtime.config.RateLimitRuntimeConfig$$CMImpl"),
                "sanity: the items of the whole build were seen: " + registered);
        assertEquals(List.of(), registered.stream().filter(c -> !registeredByQuarkus(c)).toList(),
                "the 429 body is written by hand and the annotations are recorded at build time: no reflection needed");
        // the interceptor keys its cache by the Method ArC hands it: ArC registers that method for native
        assertTrue(seen().get(REFLECTIVE_METHODS).contains(Limited.class.getName() + "#call"),
                seen().get(REFLECTIVE_METHODS).toString());
    }

    /**
     * What Quarkus registers for any extension: config mapping implementations, the enums they convert to, the
     * converters they name and the config services found by the service loader (config), interceptor bindings (ArC),
     * the class Quarkus REST generates for a {@code @ServerExceptionMapper}.
     */
    private static boolean registeredByQuarkus(String className) {
        return className.endsWith("$$CMImpl")
                // the mapping's groups and enums, AlgorithmConverter (@WithConverter), PolicyNameSpellings (a service)
                || className.startsWith("dev.ratelimit.runtime.config.")
                // the enums of quarkus.ratelimit.on-failure and policies."<name>".on-failure and .mode
                || className.equals(FailureMode.class.getName()) || className.equals(PolicyMode.class.getName())
                || className.equals(RateLimit.class.getName()) || className.equals(RateLimit.List.class.getName())
                || className.startsWith("dev.ratelimit.runtime.http.RateLimitFilter$ExceptionMapper$")
                // SmallRye OpenAPI instantiates every start-up filter by name, and registers each one
                || className.equals("dev.ratelimit.runtime.openapi.RateLimitOpenApiFilter");
    }

    @Test
    void decidesInRedisWithoutReadingAScriptResourceAtRunTime() {
        RedisFixture.shared().flushAll();
        assertEquals("ok", limited.call());
        assertEquals("ok", limited.call());
        RateLimitExceededException denied = assertThrows(RateLimitExceededException.class, limited::call);
        assertEquals("native-test", denied.policy());
        assertInstanceOf(RedisBackend.class, limiter.backend(), "decided in Redis, by the recorded scripts");

        List<String> reads = luaReads();
        assertFalse(reads.isEmpty(), "sanity: the build reads the scripts");
        assertEquals(List.of(), reads.stream().filter(r -> r.contains("Runtime ClassLoader")).toList(),
                "a script read at run time would be missing from a native executable");
    }

    /** A name checked for absence must name a class, or the check could never fail. */
    private static void assertClassExists(String name) {
        try {
            Class.forName(name, false, NativeImageSupportTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError(name + " does not exist: update this test", e);
        }
    }
}
