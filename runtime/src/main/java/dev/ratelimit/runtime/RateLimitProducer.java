package dev.ratelimit.runtime;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import dev.ratelimit.KeyResolver;
import dev.ratelimit.PlanResolver;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.runtime.backend.BackendProvider;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.backend.redis.transport.ClientOptions;
import dev.ratelimit.runtime.config.HttpConfig;
import dev.ratelimit.runtime.config.RateLimitRuntimeConfig;
import dev.ratelimit.runtime.config.StartupChecks;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.key.KeyResolution;
import dev.ratelimit.runtime.key.KeySource;
import dev.ratelimit.runtime.metrics.DecisionTally;
import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import dev.ratelimit.runtime.policy.PolicyRegistry;
import dev.ratelimit.runtime.tracing.RateLimitTracing;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.runtime.VertxHttpConfig;

/**
 * Builds the limiter from the configuration at start-up, so a bad policy fails the start, not the
 * first request.
 */
@Singleton
public class RateLimitProducer {

    private static final Logger LOG = Logger.getLogger(RateLimitProducer.class);

    /** The provider of the backend deciding, once the limiter is built. */
    private volatile BackendProvider provider;

    /** The limiter, on the backend {@code quarkus.ratelimit.backend} names among those contributed. */
    @Produces
    @Singleton
    @Typed(DefaultRateLimiter.class) // else injecting RateLimiter is ambiguous with the producer below
    DefaultRateLimiter limiter(RateLimitRuntimeConfig config, @Any Instance<BackendProvider> providers,
            Instance<RateLimitMetrics> metrics, Instance<RateLimitTracing> tracing, @Any Instance<KeyResolver> resolvers,
            @Any Instance<PlanResolver> planResolvers, Instance<DecisionTally> tally) {
        Map<String, BackendProvider> byName = new TreeMap<>();
        for (BackendProvider p : providers) {
            BackendProvider other = byName.putIfAbsent(p.name(), p);
            if (other != null) {
                throw new IllegalStateException("Two rate-limit backends are named '" + p.name() + "': "
                        + other.getClass().getName() + " and " + p.getClass().getName());
            }
        }
        PolicyRegistry policies = StartupChecks.verify(config, name -> KeySource.resolver(resolvers, name) != null,
                planResolvers.isAmbiguous() ? planResolvers.handlesStream()
                        .map(h -> h.getBean().getBeanClass().getName()).sorted().toList() : List.of(),
                byName.keySet());
        BackendProvider provider = byName.get(StartupChecks.backendName(config));
        this.provider = provider;
        LocalBackend local = new LocalBackend(config.local().maxKeys());
        RateLimitBackend backend = provider.create(local);
        StartupChecks.verifyOverridesKept(policies, backend.name(), backend.keepsOverrides());
        // a RateLimitMetrics bean exists only when the application has Micrometer, a DecisionTally only in dev mode,
        // a RateLimitTracing bean only when it has OpenTelemetry tracing (and quarkus.ratelimit.tracing.enabled)
        RateLimitMetrics reported = metrics.isResolvable() ? metrics.get() : RateLimitMetrics.NONE;
        if (tally.isResolvable()) {
            reported = tally.get().counting(reported);
        }
        return new DefaultRateLimiter(policies, backend, local, config, reported,
                tracing.isResolvable() ? tracing.get() : RateLimitTracing.NONE);
    }

    /** The provider of the backend deciding; null until the limiter is built. */
    public BackendProvider backendProvider() {
        return provider;
    }

    /** How the filter and the interceptor resolve a request's identity for a key source. */
    @Produces
    @Singleton
    KeyResolution keyResolution(RateLimitRuntimeConfig config, VertxHttpConfig httpConfig,
            // as written: VertxHttpConfig has them only parsed, into a type whose members are package-private
            @ConfigProperty(name = "quarkus.http.proxy.trusted-proxies") Optional<List<String>> trustedProxies,
            @Any Instance<KeyResolver> resolvers) {
        return new KeyResolution(config.http().ipv6PrefixLength(),
                config.http().missingHeader() == HttpConfig.MissingHeader.DENY, httpConfig.proxy(),
                trustedProxies.orElse(List.of()), resolvers);
    }

    @Produces
    @Singleton
    RateLimiter rateLimiter(DefaultRateLimiter limiter) {
        return limiter;
    }

    /**
     * Sees the options of every Redis client as quarkus-redis-client builds it, for the limiter's connections of
     * its own (one client per event loop, built with the same options). Its type makes it found as a customizer.
     */
    @Produces
    @Singleton
    ClientOptions clientOptions() {
        return new ClientOptions();
    }

    /** The limiter, once started: what is stopped at shutdown. */
    private static volatile DefaultRateLimiter started;

    /** Gives back the slices the started limiter leased, if any (the application stops; once is enough). */
    static void stopStarted() {
        DefaultRateLimiter limiter = started;
        if (limiter != null) {
            limiter.stop();
        }
    }

    /** Creates the limiter eagerly: an invalid configuration must fail the start (see {@link StartupChecks}). */
    void onStart(@Observes StartupEvent event, DefaultRateLimiter limiter) {
        started = limiter;
        LOG.debugf("Rate limiting ready: %d policies on the %s backend", limiter.policies().all().size(),
                limiter.backend().name());
    }

    /** Closes what the backend opened: Vert.x outlives the application in dev mode, and would keep it open. */
    void onStop(@Observes ShutdownEvent event) {
        stopStarted(); // given back when the shutdown began (RateLimitRecorder.shutdownListener); what came since
        started = null;
        BackendProvider p = provider;
        if (p != null) {
            p.close();
        }
    }
}
