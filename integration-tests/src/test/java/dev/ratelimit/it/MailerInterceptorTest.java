package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;

/**
 * {@code @RateLimit} on a CDI bean outside REST ({@link Mailer}): the interceptor limits it for each
 * return type, and a denied call never runs the method. Each mail policy is 3 per minute for the
 * whole application ({@code key=global}).
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class MailerInterceptorTest {

    @Inject
    Mailer mailer;

    @Inject
    DefaultRateLimiter limiter;

    @BeforeEach
    @AfterEach
    void idle() {
        // global keys are shared with the /mail endpoint's tests: forget Redis and the in-process denials
        RedisState.flush();
        if (limiter.denyCache() != null) {
            limiter.denyCache().clear();
        }
    }

    @Test
    void plainMethodThrowsOnceTheLimitIsReachedWithoutRunningTheBody() {
        int before = mailer.sent();
        for (int i = 1; i <= 3; i++) {
            assertEquals("sent to a" + i, mailer.send("a" + i));
        }
        assertEquals(before + 3, mailer.sent());

        RateLimitExceededException e = assertThrows(RateLimitExceededException.class, () -> mailer.send("too-many"));
        assertEquals("mail", e.policy());
        assertEquals(3, e.limit());
        assertEquals(0, e.remaining());
        // a token bucket of 3 per minute gives one unit back every 20 s
        assertTrue(e.retryAfterSeconds() >= 19 && e.retryAfterSeconds() <= 20, "retry after " + e.retryAfterSeconds());
        assertFalse(e.decision().allowed());
        assertEquals("mail", e.decision().policy());

        assertThrows(RateLimitExceededException.class, () -> mailer.send("still-too-many"));
        assertEquals(before + 3, mailer.sent(), "denied calls must not run the method body");
        assertEquals(List.of("rl:{global}:mail"), RedisState.keys("rl:*:mail"));
    }

    @Test
    void uniMethodFailsTheUniAndIsDecidedOnSubscription() {
        int before = mailer.sent();
        // a Uni is lazy: calling the method decides nothing until someone subscribes
        Uni<String> notSubscribed = mailer.sendAsync("lazy");
        mailer.sendAsync("lazy too");
        assertEquals(List.of(), RedisState.keys("rl:*:mail-async"), "no decision before subscription");

        for (int i = 1; i <= 3; i++) {
            assertEquals("sent to u" + i, mailer.sendAsync("u" + i).await().atMost(Duration.ofSeconds(5)));
        }
        assertEquals(before + 3, mailer.sent());

        Uni<String> denied = mailer.sendAsync("too-many");
        RateLimitExceededException e = assertThrows(RateLimitExceededException.class,
                () -> denied.await().atMost(Duration.ofSeconds(5)));
        assertEquals("mail-async", e.policy());
        assertEquals(0, e.remaining());
        assertTrue(e.retryAfterSeconds() >= 1);
        // the earlier, never subscribed Uni is decided now, and denied as well
        assertThrows(RateLimitExceededException.class, () -> notSubscribed.await().atMost(Duration.ofSeconds(5)));
        assertEquals(before + 3, mailer.sent(), "denied calls must not run the method body");
    }

    @Test
    void completionStageMethodCompletesExceptionally() throws Exception {
        int before = mailer.sent();
        for (int i = 1; i <= 3; i++) {
            assertEquals("sent to c" + i, mailer.sendStage("c" + i).toCompletableFuture().get(5, TimeUnit.SECONDS));
        }
        assertEquals(before + 3, mailer.sent());

        CompletionStage<String> denied = mailer.sendStage("too-many");
        ExecutionException failure = assertThrows(ExecutionException.class,
                () -> denied.toCompletableFuture().get(5, TimeUnit.SECONDS));
        RateLimitExceededException e = assertInstanceOf(RateLimitExceededException.class, failure.getCause());
        assertEquals("mail-stage", e.policy());
        assertEquals(0, e.remaining());
        assertTrue(e.retryAfterSeconds() >= 1);
        assertEquals(before + 3, mailer.sent(), "denied calls must not run the method body");
    }

    @Test
    void eachMethodIsLimitedByItsOwnPolicy() {
        for (int i = 0; i < 3; i++) {
            mailer.send("p" + i);
        }
        assertThrows(RateLimitExceededException.class, () -> mailer.send("p"));
        // mail is exhausted, mail-async and mail-stage are not
        assertEquals("sent to x", mailer.sendAsync("x").await().atMost(Duration.ofSeconds(5)));
        assertEquals("sent to y", mailer.sendStage("y").toCompletableFuture().join());
    }
}
