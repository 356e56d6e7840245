package dev.ratelimit.deployment.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitExceededException;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Multi;
import io.vertx.core.Vertx;

/**
 * A {@code @RateLimit} method returning {@code Multi} is decided when the stream is subscribed to, each subscription
 * once, without blocking: also when it is called and subscribed to on an event loop (where a blocking decision is
 * refused). A denied subscription fails with {@link RateLimitExceededException} and the method's stream is not
 * subscribed to.
 */
class MultiReturnTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Streams.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.streams.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.streams.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.streams.key", "global");

    @ApplicationScoped
    public static class Streams {
        static final AtomicInteger SUBSCRIBED = new AtomicInteger();

        @RateLimit("streams")
        public Multi<String> numbers() {
            return Multi.createFrom().items("one", "two").onSubscription().invoke(SUBSCRIBED::incrementAndGet);
        }
    }

    @Inject
    Streams streams;

    @Inject
    Vertx vertx;

    @Test
    void decidedAtEachSubscriptionEvenOnAnEventLoop() throws Exception {
        Multi<String> stream = streams.numbers(); // calling the method decides nothing
        assertEquals(0, Streams.SUBSCRIBED.get());
        assertEquals(List.of("one", "two"), stream.collect().asList().await().atMost(Duration.ofSeconds(5)));

        // called and subscribed to on an event loop: decided without blocking it
        CompletableFuture<List<String>> onLoop = new CompletableFuture<>();
        vertx.getOrCreateContext().runOnContext(v -> streams.numbers().collect().asList().subscribe()
                .with(onLoop::complete, onLoop::completeExceptionally));
        assertEquals(List.of("one", "two"), onLoop.get(5, TimeUnit.SECONDS));
        assertEquals(2, Streams.SUBSCRIBED.get());

        Throwable denied = captured(stream);
        assertInstanceOf(RateLimitExceededException.class, denied, "the third subscription is over the limit");
        assertEquals(2, Streams.SUBSCRIBED.get(), "a denied subscription never reaches the method's stream");
    }

    private static Throwable captured(Multi<String> stream) {
        CompletableFuture<Throwable> f = new CompletableFuture<>();
        stream.subscribe().with(item -> f.complete(null), f::complete, () -> f.complete(null));
        return f.join();
    }
}
