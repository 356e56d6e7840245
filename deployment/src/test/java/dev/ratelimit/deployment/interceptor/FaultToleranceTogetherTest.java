package dev.ratelimit.deployment.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.Fallback;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitExceededException;
import io.quarkus.test.QuarkusUnitTest;

/**
 * {@code @RateLimit} beside SmallRye Fault Tolerance's annotations on one method. The limiter's interceptor runs first
 * (priority {@code PLATFORM_BEFORE + 100}, Fault Tolerance's {@code PLATFORM_AFTER + 10}): a call is decided once,
 * whatever its retries; a denial is thrown before Fault Tolerance sees the call, so {@code @Retry} does not retry it,
 * {@code @Fallback} does not answer it and {@code @CircuitBreaker} does not count it as a failure.
 */
class FaultToleranceTogetherTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.retried.limit", "1")
            .overrideConfigKey("quarkus.ratelimit.policies.retried.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.retried.key", "global")
            .overrideConfigKey("quarkus.ratelimit.policies.fallback.limit", "1")
            .overrideConfigKey("quarkus.ratelimit.policies.fallback.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.fallback.key", "global")
            .overrideConfigKey("quarkus.ratelimit.policies.breaker.limit", "1")
            .overrideConfigKey("quarkus.ratelimit.policies.breaker.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.breaker.key", "global");

    @ApplicationScoped
    public static class Service {
        static final AtomicInteger ATTEMPTS = new AtomicInteger();
        static final AtomicInteger BREAKER_CALLS = new AtomicInteger();

        /** Fails twice, then succeeds. */
        @RateLimit("retried")
        @Retry(maxRetries = 3, delay = 0)
        public String flaky() {
            if (ATTEMPTS.incrementAndGet() < 3) {
                throw new IllegalStateException("not yet");
            }
            return "done";
        }

        @RateLimit("fallback")
        @Fallback(fallbackMethod = "cached")
        public String withFallback() {
            return "fresh";
        }

        public String cached() {
            return "cached";
        }

        @RateLimit("breaker")
        @CircuitBreaker(requestVolumeThreshold = 2, failureRatio = 0.5, delay = 60_000)
        public String guarded() {
            BREAKER_CALLS.incrementAndGet();
            return "ok";
        }
    }

    @Inject
    Service service;

    @Test
    void aCallIsDecidedOnceWhateverItsRetries() {
        assertEquals("done", service.flaky(), "three attempts, one unit of a limit of 1");
        assertEquals(3, Service.ATTEMPTS.get());
        RateLimitExceededException e = assertThrows(RateLimitExceededException.class, service::flaky);
        assertEquals("retried", e.decision().policy());
        assertEquals(3, Service.ATTEMPTS.get(), "a denied call is not retried: the method never ran");
    }

    @Test
    void aDenialIsNotAnsweredByTheFallback() {
        assertEquals("fresh", service.withFallback());
        assertThrows(RateLimitExceededException.class, service::withFallback,
                "the denial is thrown before Fault Tolerance sees the call");
    }

    @Test
    void denialsDoNotOpenTheBreaker() {
        assertEquals("ok", service.guarded());
        for (int i = 0; i < 5; i++) {
            assertThrows(RateLimitExceededException.class, service::guarded);
        }
        assertEquals(1, Service.BREAKER_CALLS.get());
        // had the denials counted as failures, the breaker would be open now and refuse with CircuitBreakerOpenException
        assertThrows(RateLimitExceededException.class, service::guarded);
    }
}
