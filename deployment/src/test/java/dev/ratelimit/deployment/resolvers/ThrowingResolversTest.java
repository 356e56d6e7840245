package dev.ratelimit.deployment.resolvers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.KeyResolver;
import dev.ratelimit.PlanResolver;
import dev.ratelimit.RateLimit;
import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;
import io.smallrye.common.annotation.Identifier;
import io.vertx.core.http.HttpServerRequest;

/**
 * A {@code KeyResolver} or {@code PlanResolver} of the application that throws does not fail the request with a 500:
 * the request is counted against the client address (key) or decided on the base plan (plan), each failure is
 * counted in {@code ratelimit.resolver.failures}, and the log says so once per policy, resolver and exception type,
 * not once per request, and without the request's values.
 */
class ThrowingResolversTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Limited.class, ThrowingKey.class, ThrowingPlan.class))
            .setForcedDependencies(List.of(Dependency.of("io.quarkus",
                    "quarkus-micrometer-registry-prometheus-deployment", Version.getVersion())))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey(P + "keyed.limit", "3")
            .overrideConfigKey(P + "keyed.window", "1h")
            .overrideConfigKey(P + "keyed.key", "tenant")
            .overrideConfigKey(P + "planned.limit", "2")
            .overrideConfigKey(P + "planned.window", "1h")
            .overrideConfigKey(P + "planned.plans.gold.limit", "100")
            .setLogRecordPredicate(r -> r.getLoggerName().startsWith("dev.ratelimit"))
            .assertLogRecords(ThrowingResolversTest::loggedOnceEach);

    @Path("/resolvers")
    public static class Limited {
        @GET
        @Path("keyed")
        @RateLimit("keyed")
        public String keyed() {
            return "ok";
        }

        @GET
        @Path("planned")
        @RateLimit("planned")
        public String planned() {
            return "ok";
        }
    }

    @ApplicationScoped
    @Identifier("tenant")
    public static class ThrowingKey implements KeyResolver {
        @Override
        public String resolve(HttpServerRequest request) {
            throw new IllegalStateException("tenant lookup failed");
        }
    }

    @ApplicationScoped
    public static class ThrowingPlan implements PlanResolver {
        @Override
        public String plan(String policy, HttpServerRequest request) {
            throw new UnsupportedOperationException("plan service down");
        }
    }

    @Test
    void aThrowingKeyResolverCountsTheClientAddress() {
        for (int i = 0; i < 3; i++) {
            RestAssured.get("/resolvers/keyed").then().statusCode(200);
        }
        // one budget for this client (its address), not a 500 per request
        RestAssured.get("/resolvers/keyed").then().statusCode(429);
        assertEquals(4, failures("keyed", "key"));
    }

    @Test
    void aThrowingPlanResolverDecidesOnTheBasePlan() {
        for (int i = 0; i < 2; i++) {
            RestAssured.get("/resolvers/planned").then().statusCode(200).header("X-RateLimit-Limit", "2");
        }
        RestAssured.get("/resolvers/planned").then().statusCode(429);
        assertEquals(3, failures("planned", "plan"));
    }

    private static double failures(String policy, String resolver) {
        String metrics = RestAssured.get("/q/metrics").then().statusCode(200).extract().asString();
        Matcher m = Pattern.compile("ratelimit_resolver_failures_total\\{[^}]*policy=\"" + policy + "\",resolver=\""
                + resolver + "\"[^}]*} ([0-9.]+)").matcher(metrics);
        assertTrue(m.find(), () -> "no ratelimit_resolver_failures_total for " + policy + " in\n" + metrics);
        return Double.parseDouble(m.group(1));
    }

    private static void loggedOnceEach(List<LogRecord> records) {
        long key = records.stream().filter(r -> r.getLevel().intValue() == Level.WARNING.intValue())
                .filter(r -> format(r).contains("The key resolver of rate-limit policy 'keyed'"))
                .count();
        long plan = records.stream().filter(r -> r.getLevel().intValue() == Level.WARNING.intValue())
                .filter(r -> format(r).contains("The plan resolver of rate-limit policy 'planned'")).count();
        assertEquals(1, key, "one warning for the key resolver, not one per request");
        assertEquals(1, plan, "one warning for the plan resolver, not one per request");
        for (LogRecord r : records) {
            assertTrue(!format(r).contains("127.0.0.1"), () -> "a client address was logged: " + format(r));
        }
    }

    private static String format(LogRecord r) {
        Object[] params = r.getParameters();
        String message = String.valueOf(r.getMessage());
        return params == null ? message : String.format(message, params);
    }
}
