package dev.ratelimit;

import io.vertx.core.http.HttpServerRequest;

/**
 * Derives the identity a policy counts requests against, for policies whose {@code key} names this
 * bean (by {@code @Identifier} or {@code @Named}). Return {@code null} to fall back to the client
 * address.
 */
public interface KeyResolver {

    /**
     * The identity for this HTTP request, or {@code null} for the client address.
     */
    String resolve(HttpServerRequest request);
}
