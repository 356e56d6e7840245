package dev.ratelimit.deployment.plans;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.specification.RequestSpecification;

/**
 * Plans in Redis, over real HTTP: a policy's plans (`gold`) and its base plan, the plan named per request by the
 * application's {@code PlanResolver} (the {@code X-Plan} header here). A gold client gets the plan's limit, any other
 * client the policy's, and the headers show each plan's {@code q}; an unknown plan name is the base plan, logged once;
 * a client moving between plans keeps what it used (one Redis key); annotated beans inside a request and path policies
 * go by the plan too, beans outside a request by the base plan; the programmatic API names plans itself.
 */
class PlansOverHttpTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Limited.class, Mailer.class, HeaderPlan.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "plans-" + System.nanoTime())
            // exact counting, no window boundary within a test: what a client used is plain to see
            .overrideConfigKey(P + "api.algorithm", "sliding-window-log")
            .overrideConfigKey(P + "api.limit", "2")
            .overrideConfigKey(P + "api.window", "1h")
            .overrideConfigKey(P + "api.key", "header:X-Client")
            .overrideConfigKey(P + "api.plans.gold.limit", "5")
            .overrideConfigKey(P + "beans.limit", "1")
            .overrideConfigKey(P + "beans.window", "1h")
            .overrideConfigKey(P + "beans.key", "header:X-Client")
            .overrideConfigKey(P + "beans.plans.gold.limit", "3")
            .overrideConfigKey(P + "open.paths", "/plans/open")
            .overrideConfigKey(P + "open.limit", "1")
            .overrideConfigKey(P + "open.window", "1h")
            .overrideConfigKey(P + "open.key", "header:X-Client")
            .overrideConfigKey(P + "open.plans.gold.limit", "2")
            .overrideConfigKey(P + "plain.limit", "2")
            .overrideConfigKey(P + "plain.window", "1h")
            .overrideConfigKey(P + "plain.key", "header:X-Client")
            .setLogRecordPredicate(r -> PlanLogs.REGISTRY.equals(r.getLoggerName()))
            .assertLogRecords(records -> {
                List<String> platinum = PlanLogs.warnings(records, "'platinum'");
                assertEquals(1, platinum.size(), () -> "an unknown plan is logged once, not per request:\n"
                        + PlanLogs.describe(records));
                assertTrue(platinum.get(0).contains("'api'") && platinum.get(0)
                        .contains("quarkus.ratelimit.policies.api.plans.platinum.limit"), platinum.get(0));
            });

    @Path("/plans")
    public static class Limited {

        @Inject
        Mailer mailer;

        @GET
        @Path("api")
        @RateLimit("api")
        public String api() {
            return "ok";
        }

        @GET
        @Path("plain")
        @RateLimit("plain")
        public String plain() {
            return "ok";
        }

        /** Not annotated: the interceptor decides the bean inside this request. */
        @GET
        @Path("bean")
        public String bean() {
            return mailer.send();
        }

        /** Limited by the path policy {@code open} only. */
        @GET
        @Path("open")
        public String open() {
            return "ok";
        }
    }

    @ApplicationScoped
    public static class Mailer {
        @RateLimit("beans")
        public String send() {
            return "sent";
        }
    }

    @Inject
    RateLimiter limiter;

    @Inject
    Mailer mailer;

    private static RequestSpecification client(String client, String plan) {
        RequestSpecification r = given().header("X-Client", client);
        return plan == null ? r : r.header(HeaderPlan.HEADER, plan);
    }

    /** {@code admitted} requests pass showing {@code limit} as the limit, then one is denied. */
    private static void admitsThenDenies(String path, String client, String plan, String policy, int limit,
            int admitted) {
        for (int i = 0; i < admitted; i++) {
            client(client, plan).get(path).then().statusCode(200)
                    .header("X-RateLimit-Limit", String.valueOf(limit))
                    .header("RateLimit-Policy", "\"" + policy + "\";q=" + limit + ";w=3600");
        }
        client(client, plan).get(path).then().statusCode(429)
                .header("X-RateLimit-Limit", String.valueOf(limit))
                .header("RateLimit-Policy", "\"" + policy + "\";q=" + limit + ";w=3600");
    }

    @Test
    void goldClientGetsThePlansLimit() {
        admitsThenDenies("/plans/api", "gold-client", "gold", "api", 5, 5);
    }

    @Test
    void clientWithoutPlanGetsThePolicysLimit() {
        admitsThenDenies("/plans/api", "base-client", null, "api", 2, 2);
    }

    @Test
    void unknownPlanIsTheBasePlan() {
        admitsThenDenies("/plans/api", "platinum-client", "platinum", "api", 2, 2);
    }

    @Test
    void movingBetweenPlansKeepsWhatWasUsed() {
        admitsThenDenies("/plans/api", "mover", null, "api", 2, 2);
        // gold counts the two admitted on the base plan: three left of five, not five
        for (int left = 2; left >= 0; left--) {
            client("mover", "gold").get("/plans/api").then().statusCode(200)
                    .header("X-RateLimit-Limit", "5").header("X-RateLimit-Remaining", String.valueOf(left));
        }
        client("mover", "gold").get("/plans/api").then().statusCode(429);
        // back on the base plan, five used of two
        client("mover", null).get("/plans/api").then().statusCode(429).header("X-RateLimit-Limit", "2");
    }

    @Test
    void beanInsideARequestGoesByThePlan() {
        admitsThenDenies("/plans/bean", "bean-gold", "gold", "beans", 3, 3);
        admitsThenDenies("/plans/bean", "bean-base", null, "beans", 1, 1);
    }

    @Test
    void pathPolicyGoesByThePlan() {
        admitsThenDenies("/plans/open", "open-gold", "gold", "open", 2, 2);
        admitsThenDenies("/plans/open", "open-base", null, "open", 1, 1);
    }

    @Test
    void policyWithoutPlansIsNeverAskedAbout() {
        admitsThenDenies("/plans/plain", "plain-gold", "gold", "plain", 2, 2);
        assertFalse(HeaderPlan.ASKED.contains("plain"), "asked about: " + HeaderPlan.ASKED);
        client("asked", "gold").get("/plans/api").then().statusCode(200);
        assertTrue(HeaderPlan.ASKED.contains("api"), "asked about: " + HeaderPlan.ASKED);
    }

    @Test
    void beanOutsideARequestIsOnTheBasePlan() {
        // outside HTTP the header key counts against the global identity; no request, so no plan
        mailer.send();
        RateLimitExceededException denied = assertThrows(RateLimitExceededException.class, mailer::send);
        assertEquals(1, denied.decision().limit());
    }

    @Test
    void programmaticChecksNameThePlan() {
        RateLimitCheck gold = RateLimitCheck.of("api", "prog-gold").onPlan("gold");
        for (int i = 0; i < 5; i++) {
            RateLimitDecision d = limiter.checkBlocking(gold);
            assertTrue(d.allowed(), d.toString());
            assertEquals(5, d.limit());
            assertEquals(4 - i, d.remaining());
        }
        assertFalse(limiter.checkBlocking(gold).allowed());

        RateLimitDecision reactive = limiter.check(RateLimitCheck.of("api", "prog-reactive").cost(2).onPlan("gold"))
                .await().indefinitely();
        assertEquals(5, reactive.limit());
        assertEquals(3, reactive.remaining());

        assertEquals(2, limiter.checkBlocking(RateLimitCheck.of("api", "prog-base").onPlan(null)).limit());
        assertEquals(2, limiter.checkBlocking("api", "prog-base", 1).limit());
        assertEquals(2, limiter.checkBlocking(RateLimitCheck.of("api", "prog-unknown").onPlan("platinum")).limit());

        // gold's capacity is 5: a cost of 6 could never be admitted on it, and the message says what to raise
        IllegalArgumentException tooMuch = assertThrows(IllegalArgumentException.class,
                () -> limiter.checkBlocking(RateLimitCheck.of("api", "prog-cost").cost(6).onPlan("gold")));
        assertTrue(tooMuch.getMessage().contains("quarkus.ratelimit.policies.api.plans.gold.limit"), tooMuch.getMessage());
        assertTrue(limiter.checkBlocking(RateLimitCheck.of("api", "prog-cost").cost(5).onPlan("gold")).allowed());
    }

    @Test
    void eachCheckOfACallIsOnItsOwnPlan() {
        // a policy without plans ignores the name; the others decide on the plan their own check names
        RateLimitDecision mixed = limiter.checkBlocking(RateLimitCheck.of("api", "prog-mixed").onPlan("gold"),
                RateLimitCheck.of("plain", "prog-mixed").onPlan("gold"), RateLimitCheck.of("api", "prog-mixed-base"));
        assertEquals(List.of(5L, 2L, 2L), mixed.policies().stream().map(PolicyDecision::limit).toList());

        // one key of one policy twice is one charge: on one plan's values, so two plans are refused, charging nothing
        IllegalArgumentException twoPlans = assertThrows(IllegalArgumentException.class,
                () -> limiter.check(RateLimitCheck.of("api", "prog-two-plans").onPlan("gold"),
                        RateLimitCheck.of("api", "prog-two-plans")));
        assertTrue(twoPlans.getMessage().contains("policy 'api'"), twoPlans.getMessage());
        assertEquals(5, limiter.stateBlocking(RateLimitCheck.of("api", "prog-two-plans").onPlan("gold")).remaining());

        // the same plan twice, or an unknown one beside the base plan (both the policy's own values), merge as before
        RateLimitDecision same = limiter.checkBlocking(RateLimitCheck.of("api", "prog-same").onPlan("gold"),
                RateLimitCheck.of("api", "prog-same").cost(2).onPlan("gold"));
        assertEquals(2, same.remaining(), same.toString());
        // a state is read on the check's plan too: 3 used of gold's 5, and of the base plan's 2
        assertEquals(2, limiter.stateBlocking(RateLimitCheck.of("api", "prog-same").onPlan("gold")).remaining());
        assertEquals(0, limiter.stateBlocking("api", "prog-same").remaining());
        assertTrue(limiter.checkBlocking(RateLimitCheck.of("api", "prog-base-twice").onPlan("platinum"),
                RateLimitCheck.of("api", "prog-base-twice")).allowed());
    }
}
