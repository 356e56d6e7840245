package dev.ratelimit.runtime;

import java.util.List;
import java.util.Optional;

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
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.backend.redis.RedisBackend;
import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;
import dev.ratelimit.runtime.backend.redis.script.StaleLibraries;
import dev.ratelimit.runtime.backend.redis.transport.ClientOptions;
import dev.ratelimit.runtime.backend.redis.transport.LuaScriptExecutor;
import dev.ratelimit.runtime.config.HttpConfig;
import dev.ratelimit.runtime.config.RateLimitBuildTimeConfig;
import dev.ratelimit.runtime.config.RateLimitRuntimeConfig;
import dev.ratelimit.runtime.config.StartupChecks;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.key.KeyResolution;
import dev.ratelimit.runtime.key.KeySource;
import dev.ratelimit.runtime.metrics.DecisionTally;
import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import dev.ratelimit.runtime.policy.PolicyRegistry;
import dev.ratelimit.runtime.tracing.RateLimitTracing;
import io.quarkus.redis.client.RedisClientName;
import io.quarkus.redis.runtime.client.config.RedisClientConfig;
import io.quarkus.redis.runtime.client.config.RedisConfig;
import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.runtime.VertxHttpConfig;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;

/**
 * Builds the limiter from the configuration at start-up, so a bad policy fails the start, not the
 * first request.
 */
@Singleton
public class RateLimitProducer {

    private static final Logger LOG = Logger.getLogger(RateLimitProducer.class);

    /** The Redis backend's executor, once the limiter is built with one. */
    private volatile LuaScriptExecutor executor;
    /** Which backend decides and why, once the limiter is built. */
    private volatile BackendChoice backendChoice;
    /** The property naming the Redis the limiter uses, once the limiter is built. */
    private volatile String hostsProperty;
    /** Quarkus's configuration of the Redis client the limiter uses, once the limiter is built; null when it has none. */
    private volatile RedisClientConfig redisClient;

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
            Instance<Redis> defaultClient, @Any Instance<Redis> namedClients, Instance<RateLimitMetrics> metrics,
            Instance<RateLimitTracing> tracing, @Any Instance<KeyResolver> resolvers,
            @Any Instance<PlanResolver> planResolvers, ClientOptions clientOptions, Instance<DecisionTally> tally,
            Vertx vertx, RedisConfig redisConfig) {
        PolicyRegistry policies = StartupChecks.verify(config, name -> KeySource.resolver(resolvers, name) != null,
                planResolvers.isAmbiguous() ? planResolvers.handlesStream()
                        .map(h -> h.getBean().getBeanClass().getName()).sorted().toList() : List.of());
        LocalBackend local = new LocalBackend(config.local().maxKeys());
        RateLimitBackend backend = local;
        Optional<String> clientName = buildConfig.redis().clientName();
        BackendChoice choice = BackendChoice.of(config.backend(), LaunchMode.current(),
                redisConfigured(redisConfig, clientName));
        this.backendChoice = choice;
        this.hostsProperty = hostsProperty(clientName);
        this.redisClient = client(redisConfig, clientName);
        if (choice == BackendChoice.LOCAL) {
            LOG.debug("Rate limits are decided in process (quarkus.ratelimit.backend=local)");
        } else if (choice == BackendChoice.LOCAL_WITHOUT_REDIS) {
            LOG.info(BackendChoice.withoutRedisMessage(LaunchMode.current(), hostsProperty(clientName)));
        } else {
            // builds the client now (a method of the bean, not just its proxy), so that quarkus-redis-client hands its
            // options to ClientOptions before they are read below
            Redis redis = clientName.isPresent()
                    ? namedClients.select(RedisClientName.Literal.of(clientName.get())).get()
                    : defaultClient.get();
            redis.getDelegate();
            boolean cluster = isCluster(redisConfig, clientName);
            int maxBatch = cluster ? 1 : config.redis().maxBatch();
            int connections = config.redis().connections().orElse(LuaScriptExecutor.ONE_PER_EVENT_LOOP);
            RedisOptions options = clientOptions.of(clientName.orElse(RedisConfig.DEFAULT_CLIENT_NAME));
            if (options == null) {
                // not built by quarkus-redis-client's factory (no options seen): the hosts and client type of its
                // configuration, without what customizers would have added
                LOG.debugf("No options seen for the Redis client %s: rate-limit connections use its configured hosts",
                        clientName.orElse("(default)"));
                options = fallbackOptions(redisConfig, clientName);
            }
            LuaScriptExecutor executor = new LuaScriptExecutor(vertx, options, maxBatch, connections);
            this.executor = executor;
            backend = new RedisBackend(executor, scripts, cluster);
            // one command after the other: the client's pool then lends one connection for all, where commands sent
            // together would open a connection each (and Micrometer would refuse the second one's gauges)
            Uni<Void> loading = Uni.createFrom().voidItem();
            if (config.redis().preloadScripts()) {
                loading = executor.preload(scripts.all()).onItemOrFailure().transform((ok, failure) -> {
                    if (failure != null) {
                        LOG.debugf("Could not preload rate-limit scripts (%s); the first calls will send them",
                                failure.toString());
                    } else {
                        LOG.debug("Rate-limit scripts loaded into Redis");
                    }
                    return null;
                });
            }
            if (config.redis().functions() && !cluster && scripts.library() != null) {
                // a cluster would need the library on every primary, kept there through resharding and failovers
                loading = loading.chain(() -> executor.loadFunctions(scripts.library(),
                        StaleLibraries.registry(config.keyPrefix()))).replaceWithVoid();
            }
            loading.subscribe().with(ok -> {
            }, failure -> LOG.debugf("Could not load the rate-limit scripts or functions: %s", failure.toString()));
        }
        // a RateLimitMetrics bean exists only when the application has Micrometer, a DecisionTally only in dev mode,
        // a RateLimitTracing bean only when it has OpenTelemetry tracing (and quarkus.ratelimit.tracing.enabled)
        RateLimitMetrics reported = metrics.isResolvable() ? metrics.get() : RateLimitMetrics.NONE;
        if (tally.isResolvable()) {
            reported = tally.get().counting(reported);
        }
        return new DefaultRateLimiter(policies, backend, local, config, reported,
                tracing.isResolvable() ? tracing.get() : RateLimitTracing.NONE);
    }

    /** Which backend decides and why; null until the limiter is built. */
    public BackendChoice backendChoice() {
        return backendChoice;
    }

    /** The property naming the Redis hosts the limiter uses ({@code quarkus.redis[.<client>].hosts}). */
    public String hostsProperty() {
        return hostsProperty;
    }

    /** Quarkus's configuration of the Redis client the limiter uses; null until the limiter is built, or without one. */
    public RedisClientConfig redisClient() {
        return redisClient;
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

    /** Creates the limiter eagerly: an invalid configuration must fail the start (see {@link StartupChecks}). */
    void onStart(@Observes StartupEvent event, DefaultRateLimiter limiter) {
        LOG.debugf("Rate limiting ready: %d policies on the %s backend", limiter.policies().all().size(),
                limiter.backend().name());
    }

    /**
     * Closes the executor's connections and the clients it built for them: Vert.x outlives the application in dev
     * mode, and would keep them open across reloads.
     */
    void onStop(@Observes ShutdownEvent event) {
        LuaScriptExecutor e = executor;
        if (e != null) {
            e.close();
        }
    }

    private static String hostsProperty(Optional<String> clientName) {
        return clientName.map(n -> "quarkus.redis." + n + ".hosts").orElse("quarkus.redis.hosts");
    }

    /** The Redis client the limiter uses, as Quarkus's typed configuration has it; null when it has none. */
    private static RedisClientConfig client(RedisConfig redisConfig, Optional<String> clientName) {
        return redisConfig.clients().get(clientName.orElse(RedisConfig.DEFAULT_CLIENT_NAME));
    }

    /** Whether the client names a Redis: hosts, or a provider of them. */
    private static boolean redisConfigured(RedisConfig redisConfig, Optional<String> clientName) {
        RedisClientConfig client = client(redisConfig, clientName);
        return client != null && (client.hosts().isPresent() || client.hostsProviderName().isPresent());
    }

    /** Options from the client's typed configuration: its hosts and type. */
    private static RedisOptions fallbackOptions(RedisConfig redisConfig, Optional<String> clientName) {
        RedisOptions options = new RedisOptions();
        RedisClientConfig client = client(redisConfig, clientName);
        if (client != null) {
            client.hosts().ifPresent(hosts -> hosts.forEach(h -> options.addConnectionString(h.toString())));
            options.setType(client.clientType());
        }
        return options;
    }

    private static boolean isCluster(RedisConfig redisConfig, Optional<String> clientName) {
        RedisClientConfig client = client(redisConfig, clientName);
        return client != null && client.clientType() == RedisClientType.CLUSTER;
    }
}
