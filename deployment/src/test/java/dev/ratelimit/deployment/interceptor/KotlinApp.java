package dev.ratelimit.deployment.interceptor;

import dev.ratelimit.deployment.interceptor.suspending.Orders;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;

/**
 * An application with the Kotlin beans of {@code src/test/kotlin} (compiled before the Java tests), deciding on the
 * shared Redis of the tests, with the policies they name.
 */
final class KotlinApp {

    private KotlinApp() {
    }

    static QuarkusUnitTest onSharedRedis() {
        return new QuarkusUnitTest()
                // the whole package: the Kotlin classes come with the continuation classes their suspend functions and
                // lambdas compile to
                .withApplicationRoot(jar -> jar.addPackage(Orders.class.getPackage()).addClass(KotlinApp.class))
                .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
                .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
                .overrideConfigKey("quarkus.ratelimit.key-prefix", "suspend-" + System.nanoTime())
                .overrideConfigKey("quarkus.ratelimit.policies.counted.algorithm", "fixed-window")
                .overrideConfigKey("quarkus.ratelimit.policies.counted.limit", "2")
                .overrideConfigKey("quarkus.ratelimit.policies.counted.window", "1h")
                .overrideConfigKey("quarkus.ratelimit.policies.counted.key", "global")
                .overrideConfigKey("quarkus.ratelimit.policies.bodies.algorithm", "fixed-window")
                .overrideConfigKey("quarkus.ratelimit.policies.bodies.limit", "3")
                .overrideConfigKey("quarkus.ratelimit.policies.bodies.window", "1h")
                .overrideConfigKey("quarkus.ratelimit.policies.bodies.key", "global")
                .overrideConfigKey("quarkus.ratelimit.policies.anywhere.limit", "1000")
                .overrideConfigKey("quarkus.ratelimit.policies.anywhere.window", "1h")
                .overrideConfigKey("quarkus.ratelimit.policies.anywhere.key", "global")
                .overrideConfigKey("quarkus.ratelimit.policies.single.algorithm", "concurrency")
                .overrideConfigKey("quarkus.ratelimit.policies.single.limit", "1")
                .overrideConfigKey("quarkus.ratelimit.policies.single.window", "1m")
                .overrideConfigKey("quarkus.ratelimit.policies.single.key", "global");
    }
}
