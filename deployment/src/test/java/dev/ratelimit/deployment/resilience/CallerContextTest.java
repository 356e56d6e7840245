package dev.ratelimit.deployment.resilience;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * An intercepted {@code Uni} or {@code CompletionStage} method goes on in its caller's Vert.x context, however the
 * decision completes: here Redis is paused, so each decision ends with the timeout, on the timeout's thread, and the
 * failure mode decides. The method used to run on that thread, outside the request's context (which breaks Hibernate
 * Reactive and request-scoped state).
 */
class CallerContextTest {

    static final RedisServerProcess REDIS = OwnRedis.of(CallerContextTest.class);

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OwnRedis.class, Resource.class, Limited.class))
            .overrideConfigKey("quarkus.redis.hosts", REDIS.uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.redis.timeout", "200ms")
            .overrideConfigKey("quarkus.ratelimit.circuit-breaker.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.ctx.limit", "1000")
            .overrideConfigKey("quarkus.ratelimit.policies.ctx.window", "1m");

    @ApplicationScoped
    public static class Limited {
        @RateLimit("ctx")
        public Uni<String> uni(Context caller) {
            return Uni.createFrom().item(where(caller));
        }

        @RateLimit("ctx")
        public CompletionStage<String> stage(Context caller) {
            return CompletableFuture.completedFuture(where(caller));
        }

        private static String where(Context caller) {
            return Vertx.currentContext() == caller ? "caller's context"
                    : "elsewhere: " + Thread.currentThread().getName() + " " + Vertx.currentContext();
        }
    }

    @Path("/ctx")
    public static class Resource {
        @Inject
        Limited limited;

        @GET
        @Path("uni")
        public Uni<String> uni() {
            return limited.uni(Vertx.currentContext());
        }

        @GET
        @Path("stage")
        public CompletionStage<String> stage() {
            return limited.stage(Vertx.currentContext());
        }
    }

    @AfterAll
    static void stopRedis() {
        REDIS.stop();
    }

    @Test
    void methodsGoOnInTheCallersContextWhenTheDecisionTimesOut() {
        given().get("/ctx/uni").then().statusCode(200).body(equalTo("caller's context"));
        given().get("/ctx/stage").then().statusCode(200).body(equalTo("caller's context"));
        try (RespClient client = REDIS.client()) {
            client.call("CLIENT", "PAUSE", "5000", "ALL");
        }
        for (int i = 0; i < 3; i++) {
            given().get("/ctx/uni").then().statusCode(200).body(equalTo("caller's context"));
            given().get("/ctx/stage").then().statusCode(200).body(equalTo("caller's context"));
        }
        try (RespClient client = REDIS.client()) {
            client.call("CLIENT", "UNPAUSE");
        }
    }
}
