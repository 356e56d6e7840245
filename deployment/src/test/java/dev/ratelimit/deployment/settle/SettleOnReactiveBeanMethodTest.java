package dev.ratelimit.deployment.settle;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;

/**
 * {@code @RateLimit(settle = true)} on a bean method whose work goes on after it returns (a {@code Uni}) fails the
 * build, naming the method and what to do instead.
 */
class SettleOnReactiveBeanMethodTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Exporter.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.rows.limit", "20")
            .overrideConfigKey("quarkus.ratelimit.policies.rows.window", "1h")
            .assertException(t -> {
                StringBuilder all = new StringBuilder();
                for (Throwable c = t; c != null; c = c.getCause()) {
                    all.append(c.getMessage()).append('\n');
                    for (Throwable s : c.getSuppressed()) {
                        all.append(s.getMessage()).append('\n');
                    }
                }
                String m = all.toString();
                assertTrue(m.contains("settle = true") && m.contains("method=exportLater")
                        && m.contains("RateLimiter.reserve"), m);
            });

    @ApplicationScoped
    public static class Exporter {
        @RateLimit(value = "rows", cost = 8, settle = true)
        public Uni<Integer> exportLater(int rows) {
            return Uni.createFrom().item(rows);
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
