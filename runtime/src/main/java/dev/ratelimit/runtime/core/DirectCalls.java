package dev.ratelimit.runtime.core;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

import io.smallrye.mutiny.Uni;

/**
 * A call the limiter makes to the backend directly, not through a failure mode (a state read, a reset, a settlement,
 * an override): it fails when the backend does not answer within the timeout.
 */
final class DirectCalls {

    private DirectCalls() {
    }

    /** {@code call}, failed with a {@link TimeoutException} when no item comes within {@code timeout}. */
    static <T> Uni<T> within(Uni<T> call, Duration timeout) {
        return call.ifNoItem().after(timeout)
                .failWith(() -> new TimeoutException("no reply from the rate-limit backend within " + timeout));
    }
}
