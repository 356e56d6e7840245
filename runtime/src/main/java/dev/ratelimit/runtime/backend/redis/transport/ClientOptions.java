package dev.ratelimit.runtime.backend.redis.transport;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.quarkus.redis.client.RedisOptionsCustomizer;
import io.vertx.redis.client.RedisOptions;

/**
 * The options quarkus-redis-client builds each of its clients with, kept as they are handed over. A customizer that
 * changes nothing: it is the one public place where the options of a configured client (hosts, password, TLS,
 * client type, pool, and what the application's own customizers set) can be seen. The executor opens its
 * connections with them, one client per event loop (see {@link LuaScriptExecutor}), since a client opens every
 * connection on the one event loop it was created on. The object itself is kept, not a copy: customizers that run
 * after this one change the same object before the client is built.
 */
public final class ClientOptions implements RedisOptionsCustomizer {

    private final Map<String, RedisOptions> byClient = new ConcurrentHashMap<>();

    @Override
    public void customize(String clientName, RedisOptions options) {
        byClient.put(clientName, options);
    }

    /** The options of this client, or null if quarkus-redis-client did not build it (yet). */
    public RedisOptions of(String clientName) {
        return byClient.get(clientName);
    }
}
