package dev.ratelimit.runtime.backend.redis.script;

import io.smallrye.mutiny.Uni;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * Sends one Redis command and gives its reply: how the script lifecycle reaches Redis without knowing the transport
 * (the executor's connections in the application, any client in a test).
 */
@FunctionalInterface
public interface Commands {

    Uni<Response> send(Request request);

    /** Commands sent on a Mutiny client of quarkus-redis-client. */
    static Commands of(io.vertx.mutiny.redis.client.Redis redis) {
        return request -> redis.send(io.vertx.mutiny.redis.client.Request.newInstance(request))
                .map(io.vertx.mutiny.redis.client.Response::getDelegate);
    }
}
