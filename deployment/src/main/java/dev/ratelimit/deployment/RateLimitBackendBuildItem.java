package dev.ratelimit.deployment;

import java.util.Objects;

import io.quarkus.builder.item.MultiBuildItem;

/**
 * A backend the application can decide on: a bean class implementing
 * {@code dev.ratelimit.runtime.backend.BackendProvider}, made an unremovable bean of the application.
 * {@code quarkus.ratelimit.backend} selects one by its name at start-up. This extension produces {@code redis} and
 * {@code local}; another extension contributes a backend by producing one more.
 */
public final class RateLimitBackendBuildItem extends MultiBuildItem {

    private final String name;
    private final String providerClass;

    /**
     * @param name the value of {@code quarkus.ratelimit.backend} that selects it, as its provider's {@code name()}
     *        returns it
     * @param providerClass the provider's class name
     */
    public RateLimitBackendBuildItem(String name, String providerClass) {
        this.name = Objects.requireNonNull(name);
        this.providerClass = Objects.requireNonNull(providerClass);
    }

    /** The value of {@code quarkus.ratelimit.backend} that selects it. */
    public String name() {
        return name;
    }

    /** The provider's class name. */
    public String providerClass() {
        return providerClass;
    }
}
