package dev.ratelimit.runtime.backend;

/**
 * A backend the limiter can decide on, selected by {@code quarkus.ratelimit.backend}: a CDI bean an extension
 * contributes with a {@code RateLimitBackendBuildItem} (this extension contributes {@code redis} and {@code local}).
 * The limiter asks every provider for its {@link #name()} and builds the backend of the one named, once, at start-up.
 */
public interface BackendProvider {

    /** The value of {@code quarkus.ratelimit.backend} that selects this backend (lower case, no spaces). */
    String name();

    /**
     * Builds the backend. Called once, at start-up, only on the provider selected.
     *
     * @param inProcess the in-process backend every limiter has (the failure mode {@code local} decides on it); a
     *        provider that cannot decide here (dev mode without a Redis) may return it
     */
    RateLimitBackend create(RateLimitBackend inProcess);

    /** Why the backend built by {@link #create} decides, in one or two sentences for the Dev UI. */
    String reason();

    /** Where the backend decides (hosts, without credentials), for the Dev UI; empty when that says nothing. */
    default String address() {
        return "";
    }

    /** Frees what {@link #create} opened; called when the application stops. */
    default void close() {
    }
}
