package dev.ratelimit.runtime.backend.redis;

import java.net.URI;
import java.util.Optional;
import java.util.stream.Collectors;

import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.ratelimit.runtime.backend.BackendProvider;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;
import dev.ratelimit.runtime.backend.redis.script.StaleLibraries;
import dev.ratelimit.runtime.backend.redis.transport.ClientOptions;
import dev.ratelimit.runtime.backend.redis.transport.LuaScriptExecutor;
import dev.ratelimit.runtime.config.RateLimitBuildTimeConfig;
import dev.ratelimit.runtime.config.RateLimitRuntimeConfig;
import io.quarkus.redis.client.RedisClientName;
import io.quarkus.redis.runtime.client.config.RedisClientConfig;
import io.quarkus.redis.runtime.client.config.RedisConfig;
import io.quarkus.runtime.LaunchMode;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;

/**
 * {@code quarkus.ratelimit.backend=redis} (the default): limits shared by every instance, decided by Lua scripts in
 * the Redis of quarkus-redis-client's default client, or of the client named by {@code quarkus.ratelimit.redis.client-name}.
 * <p>
 * In dev and test mode a Redis comes from configuration or from Quarkus's Redis Dev Services (which sets
 * {@code quarkus.redis.hosts} when it starts a container); without either, limits are decided in process rather than
 * failing every decision against a Redis that is not there. In production the configuration decides alone: a missing
 * Redis there is an outage, handled by the failure mode.
 * <p>
 * The default client has an injection point of its own, {@code defaultClient}: that is what makes quarkus-redis-client
 * create it, as the extension does not request it (a request creates a client twice: see
 * {@code RateLimitProcessor#redisClient}); and looked up among all clients ({@code @Any}) it was ambiguous as soon as
 * the application had a named client too.
 */
@Singleton
public class RedisBackendProvider implements BackendProvider {

    private static final Logger LOG = Logger.getLogger(RedisBackendProvider.class);

    /** The name that selects it. */
    public static final String NAME = "redis";

    @Inject
    RateLimitRuntimeConfig config;
    @Inject
    RateLimitBuildTimeConfig buildConfig;
    @Inject
    RedisConfig redisConfig;
    @Inject
    LuaScriptRegistry scripts;
    @Inject
    ClientOptions clientOptions;
    @Inject
    Vertx vertx;
    @Inject
    Instance<Redis> defaultClient;
    @Inject
    @Any
    Instance<Redis> namedClients;

    /** The executor, once the backend is built on Redis. */
    private volatile LuaScriptExecutor executor;
    /** Whether {@link #create} found no Redis in dev or test mode and returned the in-process backend. */
    private volatile boolean withoutRedis;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public RateLimitBackend create(RateLimitBackend inProcess) {
        Optional<String> clientName = buildConfig.redis().clientName();
        if (inProcessFor(LaunchMode.current(), redisConfigured())) {
            withoutRedis = true;
            LOG.info(withoutRedisMessage(LaunchMode.current(), hostsProperty()));
            return inProcess;
        }
        // builds the client now (a method of the bean, not just its proxy), so that quarkus-redis-client hands its
        // options to ClientOptions before they are read below
        Redis redis = clientName.isPresent()
                ? namedClients.select(RedisClientName.Literal.of(clientName.get())).get()
                : defaultClient.get();
        redis.getDelegate();
        RedisClientConfig client = client();
        boolean cluster = client != null && client.clientType() == RedisClientType.CLUSTER;
        int maxBatch = config.redis().maxBatch(); // on a cluster, a run holds the calls of one slot
        int connections = config.redis().connections().orElse(LuaScriptExecutor.ONE_PER_EVENT_LOOP);
        RedisOptions options = clientOptions.of(clientName.orElse(RedisConfig.DEFAULT_CLIENT_NAME));
        if (options == null) {
            // not built by quarkus-redis-client's factory (no options seen): the hosts and client type of its
            // configuration, without what customizers would have added
            LOG.debugf("No options seen for the Redis client %s: rate-limit connections use its configured hosts",
                    clientName.orElse("(default)"));
            options = fallbackOptions(client);
        }
        LuaScriptExecutor executor = new LuaScriptExecutor(vertx, options, maxBatch, connections);
        this.executor = executor;
        load(executor, cluster);
        return new RedisBackend(executor, scripts, cluster);
    }

    /**
     * Loads the scripts (and the function library) ahead of the first decision, in the background: one command after
     * the other, as the client's pool then lends one connection for all, where commands sent together would open a
     * connection each (and Micrometer would refuse the second one's gauges). A failure only means the first calls
     * send them.
     */
    private void load(LuaScriptExecutor executor, boolean cluster) {
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

    @Override
    public String reason() {
        if (withoutRedis) {
            return "Dev mode without Redis: none is configured (" + hostsProperty()
                    + ") and Dev Services started none (turned off, or no container runtime). Set " + hostsProperty()
                    + ", or start a container runtime, to decide in Redis.";
        }
        return "Configured: quarkus.ratelimit.backend=redis (the default), with a Redis from " + hostsProperty()
                + " (set by you or by Dev Services).";
    }

    /** The Redis hosts as configured, without credentials; or the hosts provider that gives them. */
    @Override
    public String address() {
        RedisClientConfig client = client();
        if (client == null) {
            return "(not configured)";
        }
        return client.hosts().filter(hosts -> !hosts.isEmpty())
                .map(hosts -> withoutCredentials(hosts.stream().map(URI::toString).collect(Collectors.joining(","))))
                .orElseGet(() -> client.hostsProviderName().map(name -> "from the hosts provider '" + name + "'")
                        .orElse("(not configured)"));
    }

    /**
     * Closes the executor's connections and the clients it built for them: Vert.x outlives the application in dev
     * mode, and would keep them open across reloads.
     */
    @Override
    public void close() {
        LuaScriptExecutor e = executor;
        if (e != null) {
            e.close();
        }
    }

    /** Quarkus's configuration of the Redis client the limiter uses; null when it has none. */
    public RedisClientConfig client() {
        return redisConfig.clients().get(buildConfig.redis().clientName().orElse(RedisConfig.DEFAULT_CLIENT_NAME));
    }

    /** The property naming the Redis hosts the limiter uses ({@code quarkus.redis[.<client>].hosts}). */
    String hostsProperty() {
        return buildConfig.redis().clientName().map(n -> "quarkus.redis." + n + ".hosts").orElse("quarkus.redis.hosts");
    }

    /** Whether the client names a Redis: hosts, or a provider of them. */
    private boolean redisConfigured() {
        RedisClientConfig client = client();
        return client != null && (client.hosts().isPresent() || client.hostsProviderName().isPresent());
    }

    /** Whether limits are decided in process for want of a Redis: in dev and test mode only. */
    static boolean inProcessFor(LaunchMode mode, boolean redisConfigured) {
        return mode != LaunchMode.NORMAL && !redisConfigured;
    }

    /** What the application logs, once, when it decides in process for want of a Redis. */
    static String withoutRedisMessage(LaunchMode mode, String hostsProperty) {
        String session = mode == LaunchMode.TEST ? "this test run" : "this dev-mode session";
        return "No Redis configured (" + hostsProperty + ") and none from Dev Services (turned off, or no container "
                + "runtime): rate limits are decided in process for " + session + ". Set " + hostsProperty
                + ", or start a container runtime, to share limits between instances.";
    }

    /** {@code redis://user:secret@host:6379} as {@code redis://host:6379}, for each host of a list. */
    static String withoutCredentials(String hosts) {
        return hosts.replaceAll("//[^/,]*@", "//");
    }

    /** Options from the client's typed configuration: its hosts and type. */
    private static RedisOptions fallbackOptions(RedisClientConfig client) {
        RedisOptions options = new RedisOptions();
        if (client != null) {
            client.hosts().ifPresent(hosts -> hosts.forEach(h -> options.addConnectionString(h.toString())));
            options.setType(client.clientType());
        }
        return options;
    }
}
