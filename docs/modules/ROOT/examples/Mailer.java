package dev.ratelimit.it;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;

import dev.ratelimit.RateLimit;
import io.smallrye.mutiny.Uni;

/**
 * A service bean outside REST: the interceptor limits it, whatever its return type.
 */
// tag::bean[]
@ApplicationScoped
public class Mailer {

    private final AtomicInteger sent = new AtomicInteger();

    @RateLimit("mail")
    public String send(String to) {
        sent.incrementAndGet();
        return "sent to " + to;
    }

    @RateLimit("mail-async")
    public Uni<String> sendAsync(String to) {
        return Uni.createFrom().item(() -> {
            sent.incrementAndGet();
            return "sent to " + to;
        });
    }

    @RateLimit("mail-stage")
    public CompletionStage<String> sendStage(String to) {
        sent.incrementAndGet();
        return CompletableFuture.completedFuture("sent to " + to);
    }

    /** How many mails actually went out (denied calls never reach the method body). */
    public int sent() {
        return sent.get();
    }
}
// end::bean[]
