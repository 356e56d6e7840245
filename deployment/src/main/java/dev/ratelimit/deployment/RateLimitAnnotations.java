package dev.ratelimit.deployment;

import org.jboss.jandex.DotName;

import dev.ratelimit.RateLimit;

/**
 * Annotation names, in one place.
 */
final class RateLimitAnnotations {

    static final DotName RATE_LIMIT = DotName.createSimple(RateLimit.class);
    static final DotName RATE_LIMIT_LIST = DotName.createSimple(RateLimit.List.class);

    private RateLimitAnnotations() {
    }
}
