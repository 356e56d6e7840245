package dev.ratelimit.runtime;

import java.util.Optional;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.local.LocalBackend;
import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import dev.ratelimit.runtime.policy.PolicyRegistry;
import dev.ratelimit.runtime.redis.LuaScriptExecutor;
import dev.ratelimit.runtime.redis.LuaScriptRegistry;
import dev.ratelimit.runtime.redis.RedisBackend;
import io.quarkus.redis.client.RedisClientName;
import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.ConfigurationException;
import io.vertx.mutiny.redis.client.Redis;

/**
 * Builds the limiter from the configuration at start-up, so a bad policy fails the start, not the
 * first request.
 */
@Singleton
public class RateLimitProducer {

    private static final Logger LOG = Logger.getLogger(RateLimitProducer.class);

    /**
     * The limiter. The default client has an injection point of its own, {@code defaultClient}: that is what makes
     * quarkus-redis-client create it, as the extension does not request it (a request creates a client twice: see
     * {@code RateLimitProcessor#redisClient}); and looked up among all clients ({@code @Any}) it was ambiguous as soon
     * as the application had a named client too.
     */
    @Produces
    @Singleton
    @Typed(DefaultRateLimiter.class) // else injecting RateLimiter is ambiguous with the producer below
    DefaultRateLimiter limiter(RateLimitRuntimeConfig config, RateLimitBuildTimeConfig buildConfig, LuaScriptRegistry scripts,
            Instance<Redis> defaultClient, @Any Instance<Redis> namedClients, Instance<RateLimitMetrics> metrics) {
        PolicyRegistry policies = ConfiguredPolicies.from(config);
        int maxKeys = config.local().maxKeys();
        if (maxKeys < 1) {
            throw new ConfigurationException("quarkus.ratelimit.local.max-keys is " + maxKeys
                    + ": set it to 1 or more (the most keys the in-process limiter holds state for)");
        }
        LocalBackend local = new LocalBackend(maxKeys);
        RateLimitBackend backend = local;
        Optional<String> clientName = buildConfig.redis().clientName();
        if (config.backend() == RateLimitRuntimeConfig.Backend.LOCAL) {
            LOG.debug("Rate limits are decided in process (quarkus.ratelimit.backend=local)");
        } else if (LaunchMode.current() == LaunchMode.DEVELOPMENT && !redisConfigured(clientName)) {
            LOG.infof("No Redis configured (%s): rate limits are decided in process for this dev-mode session. "
                    + "Set it to share limits between instances.", hostsProperty(clientName));
        } else {
            Redis redis = clientName.isPresent()
                    ? namedClients.select(RedisClientName.Literal.of(clientName.get())).get()
                    : defaultClient.get();
            int maxBatch = config.redis().maxBatch();
            if (maxBatch < 1) {
                throw new ConfigurationException("quarkus.ratelimit.redis.max-batch is " + maxBatch
                        + ": set it to 1 or more (1 sends every decision alone)");
            }
            int connections = config.redis().connections();
            if (connections < 1) {
                throw new ConfigurationException("quarkus.ratelimit.redis.connections is " + connections
                        + ": set it to 1 or more");
            }
            boolean cluster = isCluster(clientName);
            LuaScriptExecutor executor = new LuaScriptExecutor(redis, cluster ? 1 : maxBatch, connections);
            backend = new RedisBackend(executor, scripts, cluster);
            if (config.redis().preloadScripts()) {
                executor.preload(scripts.all()).subscribe().with(
                        ok -> LOG.debug("Rate-limit scripts loaded into Redis"),
                        failure -> LOG.debugf("Could not preload rate-limit scripts (%s); the first calls will "
                                + "send them", failure.toString()));
            }
        }
        // a RateLimitMetrics bean exists only when the application has Micrometer
        return new DefaultRateLimiter(policies, backend, local, config,
                metrics.isResolvable() ? metrics.get() : RateLimitMetrics.NONE);
    }

    @Produces
    @Singleton
    RateLimiter rateLimiter(DefaultRateLimiter limiter) {
        return limiter;
    }

    /** Creates the limiter eagerly: invalid policies must fail the start. */
    void onStart(@Observes StartupEvent event, DefaultRateLimiter limiter, HttpLimits http) {
        LOG.debugf("Rate limiting ready: %d policies on the %s backend", limiter.policies().all().size(),
                limiter.backend().name());
    }

    private static String hostsProperty(Optional<String> clientName) {
        return clientName.map(n -> "quarkus.redis." + n + ".hosts").orElse("quarkus.redis.hosts");
    }

    private static boolean redisConfigured(Optional<String> clientName) {
        var config = ConfigProvider.getConfig();
        return config.getOptionalValue(hostsProperty(clientName), String.class).isPresent()
                || config.getOptionalValue(clientName.map(n -> "quarkus.redis." + n + ".hosts-provider-name")
                        .orElse("quarkus.redis.hosts-provider-name"), String.class).isPresent();
    }

    private static boolean isCluster(Optional<String> clientName) {
        String property = clientName.map(n -> "quarkus.redis." + n + ".client-type").orElse("quarkus.redis.client-type");
        return "cluster".equalsIgnoreCase(ConfigProvider.getConfig().getOptionalValue(property, String.class).orElse(""));
    }
}
