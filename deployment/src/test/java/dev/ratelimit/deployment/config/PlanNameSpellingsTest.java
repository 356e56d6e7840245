package dev.ratelimit.deployment.config;

import static io.restassured.RestAssured.given;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.PlanResolver;
import dev.ratelimit.RateLimit;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.http.HttpServerRequest;

/**
 * Every spelling SmallRye Config accepts for a policy's properties works for its plans too: quoted and plain policy
 * and plan names, names with dots (quoted), one plan spelled both ways (its limit in one spelling, its window in the
 * other), and the active profile's {@code %test.} properties. Each policy admits 1 on its own values and 3 on its
 * plan; the gold requests must get the plan's values, with {@code q} and {@code w} to show it.
 */
class PlanNameSpellingsTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Limited.class, Plan.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "plan-spellings-" + System.nanoTime())
            .overrideConfigKey(P + "\"quoted\".limit", "1")
            .overrideConfigKey(P + "\"quoted\".window", "1h")
            .overrideConfigKey(P + "\"quoted\".plans.\"gold\".limit", "3")
            .overrideConfigKey(P + "plain.limit", "1")
            .overrideConfigKey(P + "plain.window", "1h")
            .overrideConfigKey(P + "plain.plans.gold.limit", "3")
            .overrideConfigKey(P + "\"with.dots\".limit", "1")
            .overrideConfigKey(P + "\"with.dots\".window", "1h")
            .overrideConfigKey(P + "\"with.dots\".plans.\"gold.v2\".limit", "3")
            .overrideConfigKey(P + "mixed.limit", "1")
            .overrideConfigKey(P + "mixed.window", "1h")
            .overrideConfigKey(P + "mixed.plans.\"gold\".limit", "3")
            .overrideConfigKey(P + "\"mixed\".plans.gold.window", "2h")
            .overrideConfigKey(P + "profiled.limit", "1")
            .overrideConfigKey(P + "profiled.window", "1h")
            .overrideConfigKey("%test." + P + "profiled.plans.gold.limit", "3")
            .overrideConfigKey("%prod." + P + "profiled.plans.gold.limit", "1000");

    @Path("/plan-spelled")
    public static class Limited {
        @GET
        @Path("quoted")
        @RateLimit("quoted")
        public String quoted() {
            return "ok";
        }

        @GET
        @Path("plain")
        @RateLimit("plain")
        public String plain() {
            return "ok";
        }

        @GET
        @Path("dots")
        @RateLimit("with.dots")
        public String dots() {
            return "ok";
        }

        @GET
        @Path("mixed")
        @RateLimit("mixed")
        public String mixed() {
            return "ok";
        }

        @GET
        @Path("profiled")
        @RateLimit("profiled")
        public String profiled() {
            return "ok";
        }
    }

    /** The plan is the {@code X-Plan} header. */
    @ApplicationScoped
    public static class Plan implements PlanResolver {
        @Override
        public String plan(String policy, HttpServerRequest request) {
            return request.getHeader("X-Plan");
        }
    }

    @Test
    void quotedPolicyAndPlanNames() {
        expectPlan("/plan-spelled/quoted", "quoted", "gold", 3600);
    }

    @Test
    void plainPolicyAndPlanNames() {
        expectPlan("/plan-spelled/plain", "plain", "gold", 3600);
    }

    @Test
    void namesWithDots() {
        expectPlan("/plan-spelled/dots", "with.dots", "gold.v2", 3600);
    }

    @Test
    void onePlanSpelledBothWaysIsOnePlan() {
        expectPlan("/plan-spelled/mixed", "mixed", "gold", 7200);
    }

    @Test
    void activeProfileValuesCount() {
        expectPlan("/plan-spelled/profiled", "profiled", "gold", 3600);
    }

    /** Three admitted on the plan, each showing the plan's limit and window, then a denial. */
    private static void expectPlan(String path, String policy, String plan, int windowSeconds) {
        String q = "\"" + policy + "\";q=3;w=" + windowSeconds;
        for (int i = 0; i < 3; i++) {
            given().header("X-Plan", plan).get(path).then().statusCode(200).header("X-RateLimit-Limit", "3")
                    .header("RateLimit-Policy", q);
        }
        given().header("X-Plan", plan).get(path).then().statusCode(429).header("RateLimit-Policy", q);
    }
}
