package dev.ratelimit.deployment.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.deployment.RateLimitBackendBuildItem;
import dev.ratelimit.runtime.backend.BackendProvider;
import dev.ratelimit.runtime.backend.BackendReply;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.policy.Policy;
import io.quarkus.builder.BuildContext;
import io.quarkus.builder.BuildStep;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;

/**
 * Another extension contributes a backend with a {@link RateLimitBackendBuildItem}, and
 * {@code quarkus.ratelimit.backend} selects it by name: every decision goes to it, and the limits hold as its
 * decisions say.
 */
class ContributedBackendTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(CountingProvider.class, Counting.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "Counting")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1h")
            .addBuildChainCustomizer(chain -> chain.addBuildStep(new BuildStep() {
                @Override
                public void execute(BuildContext context) {
                    context.produce(new RateLimitBackendBuildItem("counting", CountingProvider.class.getName()));
                }
            }).produces(RateLimitBackendBuildItem.class).build());

    @Inject
    RateLimiter limiter;

    @Inject
    DefaultRateLimiter core;

    @Test
    void theNamedBackendDecidesEveryCall() {
        assertTrue(limiter.checkBlocking("api", "k").allowed());
        assertTrue(limiter.checkBlocking("api", "k").allowed());
        assertFalse(limiter.checkBlocking("api", "k").allowed());
        assertEquals("counting", core.backend().name());
        assertEquals(3, Counting.DECISIONS.get());
    }

    /** The contributed provider: the in-process backend, counting the decisions it is asked for. */
    public static class CountingProvider implements BackendProvider {
        @Override
        public String name() {
            return "counting";
        }

        @Override
        public RateLimitBackend create(RateLimitBackend inProcess) {
            return new Counting(inProcess);
        }

        @Override
        public String reason() {
            return "Configured: quarkus.ratelimit.backend=counting.";
        }
    }

    static final class Counting implements RateLimitBackend {
        static final AtomicInteger DECISIONS = new AtomicInteger();
        private final RateLimitBackend delegate;

        Counting(RateLimitBackend delegate) {
            this.delegate = delegate;
        }

        @Override
        public Uni<BackendReply> decide(Policy[] policies, String[] keys, long[] costs, long nowMicros, boolean dryRun,
                String lease) {
            DECISIONS.incrementAndGet();
            return delegate.decide(policies, keys, costs, nowMicros, dryRun, lease);
        }

        @Override
        public Uni<BackendReply> reserve(Policy[] policies, String[] keys, long[] costs, long nowMicros, String lease) {
            DECISIONS.incrementAndGet();
            return delegate.reserve(policies, keys, costs, nowMicros, lease);
        }

        @Override
        public Uni<BackendReply> settle(Policy[] policies, String[] keys, long[] refunds, long[] chargedAt,
                long nowMicros) {
            return delegate.settle(policies, keys, refunds, chargedAt, nowMicros);
        }

        @Override
        public Uni<Void> release(Policy[] policies, String[] keys, long[] costs, String lease, long nowMicros) {
            return delegate.release(policies, keys, costs, lease, nowMicros);
        }

        @Override
        public Uni<BackendReply> peek(Policy policy, String key) {
            return delegate.peek(policy, key);
        }

        @Override
        public Uni<Void> forget(String key) {
            return delegate.forget(key);
        }

        @Override
        public String name() {
            return "counting";
        }
    }
}
