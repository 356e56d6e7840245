package dev.ratelimit.deployment.validation;

import static dev.ratelimit.deployment.validation.ValidationProblems.assertNames;
import static dev.ratelimit.deployment.validation.ValidationProblems.problems;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import kotlin.coroutines.Continuation;
import kotlinx.coroutines.Deferred;

/**
 * A limited bean method returning an asynchronous type the interceptor does not handle ({@code Flow.Publisher},
 * {@code Future}, Kotlin's {@code Deferred}) fails the build, naming the method: deciding it would block its caller,
 * often an event loop. A Vert.x {@code Future} too. {@code Uni}, {@code Multi}, {@code CompletionStage}, plain types
 * and Kotlin {@code suspend} functions (their compiled shape: a last parameter of type {@code Continuation}) build,
 * and so do JAX-RS resource methods returning a publisher or suspending, annotated themselves or through their
 * interface (the filter decides them without blocking).
 */
class AsynchronousReturnTypeTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class, Resource.class, FeedApi.class, FeedApiImpl.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.feed.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.feed.window", "1m")
            .assertException(t -> {
                List<RateLimitValidationException> problems = new ArrayList<>(problems(t, 4));
                problems.sort(Comparator.comparing(Throwable::getMessage));
                problems.forEach(p -> assertInstanceOf(RateLimitValidationException.AsynchronousReturnTypeException.class, p));
                assertNames(problems.get(0), Service.class.getName(), "vertx", "feed", "io.vertx.core.Future",
                        "return Uni, Multi or CompletionStage", "make it a Kotlin suspend function");
                assertNames(problems.get(1), Service.class.getName(), "stream", "feed",
                        "java.util.concurrent.Flow.Publisher");
                assertNames(problems.get(2), Service.class.getName(), "later", "feed", "java.util.concurrent.Future");
                assertNames(problems.get(3), Service.class.getName(), "deferred", "feed", "kotlinx.coroutines.Deferred");
                assertEquals(4, problems.size(), "the suspend function is not a problem");
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit("feed")
        public Flow.Publisher<String> stream() {
            return Multi.createFrom().item("a");
        }

        @RateLimit("feed")
        public Future<String> later() {
            return java.util.concurrent.CompletableFuture.completedFuture("a");
        }

        /** A suspend function, as Kotlin compiles it: decided without blocking. */
        @RateLimit("feed")
        public Object fetch(String id, Continuation<? super String> continuation) {
            return id;
        }

        @RateLimit("feed")
        public Deferred<String> deferred() {
            return null;
        }

        @RateLimit("feed")
        public io.vertx.core.Future<String> vertx() {
            return io.vertx.core.Future.succeededFuture("a");
        }

        @RateLimit("feed")
        public Uni<String> uni() {
            return Uni.createFrom().item("a");
        }

        @RateLimit("feed")
        public Multi<String> multi() {
            return Multi.createFrom().item("a");
        }

        @RateLimit("feed")
        public CompletionStage<String> stage() {
            return java.util.concurrent.CompletableFuture.completedFuture("a");
        }

        @RateLimit("feed")
        public String plain() {
            return "a";
        }
    }

    @Path("/feed")
    public static class Resource {
        @GET
        @RateLimit("feed")
        public Flow.Publisher<String> feed() {
            return Multi.createFrom().item("a");
        }
    }

    /** A resource whose JAX-RS annotations are on its interface, as generated API interfaces have them. */
    @Path("/api-feed")
    public interface FeedApi {
        @GET
        Flow.Publisher<String> feed();

        @GET
        @Path("/item")
        Object item(String id, Continuation<? super String> continuation);
    }

    public static class FeedApiImpl implements FeedApi {
        @Override
        @RateLimit("feed")
        public Flow.Publisher<String> feed() {
            return Multi.createFrom().item("a");
        }

        @Override
        @RateLimit("feed")
        public Object item(String id, Continuation<? super String> continuation) {
            return id;
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
