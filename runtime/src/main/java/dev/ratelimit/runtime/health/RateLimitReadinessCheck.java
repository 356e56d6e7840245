package dev.ratelimit.runtime.health;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.config.RateLimitRuntimeConfig;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.resilience.CircuitBreaker;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;

/**
 * The readiness of the rate-limit backend, under {@code /q/health/ready} when the application has
 * {@code quarkus-smallrye-health} (the build registers it then; this is the one class that references the health
 * API, an optional dependency). Asks Redis ({@code PING}, under the Redis timeout) without blocking and reports the
 * backend, whether Redis answered, the circuit breaker's state and, when Redis does not answer, what decides
 * meanwhile. {@code DOWN} on an outage only with {@code quarkus.ratelimit.health.down-on-outage=true}.
 */
@Readiness
@ApplicationScoped
public class RateLimitReadinessCheck implements AsyncHealthCheck {

    static final String NAME = "Rate limiter";

    @Inject
    DefaultRateLimiter limiter;

    @Inject
    RateLimitRuntimeConfig config;

    private static final Logger LOG = Logger.getLogger(RateLimitReadinessCheck.class);

    /** What kind of failure it was, without its message: {@code timeout}, or the exception's simple name. */
    static String kind(Throwable failure) {
        if (failure instanceof TimeoutException || failure instanceof io.smallrye.mutiny.TimeoutException) {
            return "timeout";
        }
        return failure.getClass().getSimpleName();
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        RateLimitBackend backend = limiter.backend();
        HealthCheckResponseBuilder b = HealthCheckResponse.named(NAME).withData("backend", backend.name());
        if (!"redis".equals(backend.name())) {
            return Uni.createFrom().item(b.up().build());
        }
        CircuitBreaker breaker = limiter.circuitBreaker();
        b.withData("circuit-breaker", breaker == null ? "disabled" : breaker.state().name().toLowerCase().replace('_', '-'));
        Duration timeout = config.redis().timeout();
        long start = System.nanoTime();
        return backend.ping().ifNoItem().after(timeout).fail()
                .map(ok -> b.withData("redis", "reachable")
                        .withData("redis-ping-ms", (System.nanoTime() - start) / 1_000_000).up().build())
                .onFailure().recoverWithItem(failure -> {
                    // the kind of failure only: the endpoint is often public, and a failure's message names the
                    // Redis address (and may carry a server's reply); the whole of it goes to the DEBUG log
                    LOG.debugf("Readiness: Redis did not answer PING: %s", failure);
                    b.withData("redis", "unreachable (" + kind(failure) + ")")
                            .withData("deciding", "failure modes (default on-failure: "
                                    + config.onFailure().name().toLowerCase().replace('_', '-') + ")");
                    return (config.health().downOnOutage() ? b.down() : b.up()).build();
                });
    }
}
