package dev.ratelimit.deployment.exemptions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.Exemption;
import dev.ratelimit.RateLimit;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.vertx.core.http.HttpServerRequest;

/**
 * Exemptions over real HTTP on Redis: a request whose client address is in a policy's {@code exempt-addresses} (the
 * address the {@code ip} key derives, through a trusted proxy too) or that an {@code Exemption} bean names is neither
 * charged nor denied by that policy and carries none of its headers, while the other policies of the request still
 * count it; it is counted under the outcome {@code exempt}; a bean that throws exempts nothing and fails no request;
 * an annotated bean called during the request is exempt alike.
 */
class ExemptionsOverHttpTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Limited.class, Audit.class, InternalHeader.class,
                    ThrowingExemption.class))
            .setForcedDependencies(List.of(Dependency.of("io.quarkus",
                    "quarkus-micrometer-registry-prometheus-deployment", Version.getVersion())))
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.http.proxy.proxy-address-forwarding", "true")
            .overrideConfigKey("quarkus.http.proxy.trusted-proxies", "127.0.0.1")
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "exempt-" + System.nanoTime())
            // the test's own address (127.0.0.1 through no proxy, or as a trusted proxy's peer) is not in it
            .overrideConfigKey(P + "partner.exempt-addresses", "10.0.0.0/8, 2001:db8::/32, 192.168.7.7")
            .overrideConfigKey(P + "partner.limit", "2")
            .overrideConfigKey(P + "partner.window", "1h")
            .overrideConfigKey(P + "partner.key", "header:X-Client")
            .overrideConfigKey(P + "api.limit", "2")
            .overrideConfigKey(P + "api.window", "1h")
            .overrideConfigKey(P + "api.key", "header:X-Client")
            .overrideConfigKey(P + "strict.limit", "2")
            .overrideConfigKey(P + "strict.window", "1h")
            .overrideConfigKey(P + "strict.key", "header:X-Client")
            .overrideConfigKey(P + "audit.limit", "1")
            .overrideConfigKey(P + "audit.window", "1h")
            .overrideConfigKey(P + "audit.key", "header:X-Client")
            .overrideConfigKey(P + "health.paths", "/exempt/health")
            .overrideConfigKey(P + "health.limit", "1")
            .overrideConfigKey(P + "health.window", "1h")
            .overrideConfigKey(P + "health.key", "global");

    @Path("/exempt")
    public static class Limited {
        @Inject
        Audit audit;

        @GET
        @Path("partner")
        @RateLimit("partner")
        public String partner() {
            return "ok";
        }

        @GET
        @Path("both")
        @RateLimit("api")
        @RateLimit("partner")
        public String both() {
            return "ok";
        }

        @GET
        @Path("strict")
        @RateLimit("strict")
        public String strict() {
            return "ok";
        }

        @GET
        @Path("audited")
        public String audited() {
            return audit.record();
        }

        @GET
        @Path("health")
        public String health() {
            return "up";
        }
    }

    /** A bean limited by a policy the internal header exempts: the interceptor asks the exemption too. */
    @ApplicationScoped
    public static class Audit {
        @RateLimit("audit")
        public String record() {
            return "recorded";
        }
    }

    /** Internal callers (the header) are not counted by {@code api}, {@code audit} and {@code health}. */
    @ApplicationScoped
    public static class InternalHeader implements Exemption {
        @Override
        public boolean exempt(String policy, HttpServerRequest request) {
            return !policy.equals("partner") && !policy.equals("strict") && "yes".equals(request.getHeader("X-Internal"));
        }
    }

    /** Fails for {@code strict}: its requests are counted all the same. */
    @ApplicationScoped
    public static class ThrowingExemption implements Exemption {
        @Override
        public boolean exempt(String policy, HttpServerRequest request) {
            if (policy.equals("strict")) {
                throw new IllegalStateException("directory unavailable");
            }
            return false;
        }
    }

    private static Response get(String path, String client, String forwardedFor, boolean internal) {
        var request = RestAssured.given().header("X-Client", client);
        if (forwardedFor != null) {
            request = request.header("X-Forwarded-For", forwardedFor);
        }
        if (internal) {
            request = request.header("X-Internal", "yes");
        }
        return request.get(path);
    }

    @Test
    void addressesInTheBlocksAreNeitherChargedNorDenied() {
        // behind the trusted proxy (the test itself), 10.1.2.3 is the client: exempt, however many
        for (int i = 0; i < 6; i++) {
            Response r = get("/exempt/partner", "a", "10.1.2.3", false);
            assertEquals(200, r.statusCode());
            assertNull(r.header("RateLimit"), "an exempt request carries no rate-limit headers");
            assertNull(r.header("X-RateLimit-Remaining"));
        }
        for (String exempt : List.of("2001:db8::17", "192.168.7.7", "[2001:db8:1::1]:4711")) {
            assertNull(get("/exempt/partner", "a", exempt, false).then().statusCode(200).extract().header("RateLimit"));
        }
        // the same client key from addresses outside the blocks is counted: its full budget is still there
        Response first = get("/exempt/partner", "a", "11.0.0.1", false);
        assertEquals(200, first.statusCode());
        assertEquals("1", first.header("X-RateLimit-Remaining"));
        assertEquals(200, get("/exempt/partner", "a", "192.168.7.8", false).statusCode());
        Response denied = get("/exempt/partner", "a", null, false);
        assertEquals(429, denied.statusCode(), "127.0.0.1 is not exempt");
        assertTrue(denied.header("Retry-After") != null);
        // and an exempt address still passes while the key is exhausted
        assertEquals(200, get("/exempt/partner", "a", "10.9.9.9", false).statusCode());
    }

    @Test
    void anExemptionBeanExemptsItsPoliciesOnly() {
        // exempt from api, not from partner: partner's headers only, and partner is charged
        Response r = get("/exempt/both", "b", null, true);
        assertEquals(200, r.statusCode());
        assertEquals("\"partner\";r=1;t=3600", r.header("RateLimit").replaceAll(";t=\\d+", ";t=3600"));
        assertEquals(200, get("/exempt/both", "b", null, true).statusCode());
        assertEquals(429, get("/exempt/both", "b", null, true).statusCode(), "partner still limits");
        // api was never charged: a fresh partner key (an exempt address) shows api's whole budget
        Response api = get("/exempt/both", "b", "10.0.0.1", false);
        assertEquals(200, api.statusCode());
        assertEquals("\"api\";r=1;t=3600", api.header("RateLimit").replaceAll(";t=\\d+", ";t=3600"));
    }

    @Test
    void pathPoliciesAndAnnotatedBeansAskTheExemptionToo() {
        for (int i = 0; i < 4; i++) {
            Response health = get("/exempt/health", "c", null, true);
            assertEquals(200, health.statusCode());
            assertNull(health.header("RateLimit"));
            assertEquals("recorded", get("/exempt/audited", "c", null, true).then().statusCode(200).extract().asString());
        }
        assertEquals(200, get("/exempt/health", "c", null, false).statusCode());
        assertEquals(429, get("/exempt/health", "c", null, false).statusCode());
        assertEquals(200, get("/exempt/audited", "c", null, false).statusCode());
        assertEquals(429, get("/exempt/audited", "c", null, false).statusCode());
    }

    @Test
    void aThrowingExemptionCountsTheRequestAndIsCountedAsExempt() {
        assertEquals(200, get("/exempt/strict", "d", null, true).statusCode());
        assertEquals(200, get("/exempt/strict", "d", null, true).statusCode());
        assertEquals(429, get("/exempt/strict", "d", null, true).statusCode());
        String metrics = RestAssured.get("/q/metrics").then().statusCode(200).extract().asString();
        assertTrue(value(metrics, "ratelimit_resolver_failures_total", "policy=\"strict\"",
                "resolver=\"exemption\"") >= 3);
        assertEquals(0.0, value(metrics, "ratelimit_decisions_total", "policy=\"strict\"", "outcome=\"exempt\""));
        // the other tests ran exempt requests through partner (address) and api (bean); counted, never zero
        get("/exempt/partner", "e", "10.0.0.2", false);
        metrics = RestAssured.get("/q/metrics").then().statusCode(200).extract().asString();
        assertTrue(value(metrics, "ratelimit_decisions_total", "policy=\"partner\"", "outcome=\"exempt\"") >= 1);
    }

    /** The value of the one sample of {@code name} whose labels include all of {@code labels}. */
    private static double value(String metrics, String name, String... labels) {
        Pattern sample = Pattern.compile("^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE);
        Matcher m = sample.matcher(metrics);
        while (m.find()) {
            boolean all = true;
            for (String label : labels) {
                all &= m.group(1).contains(label);
            }
            if (all) {
                return Double.parseDouble(m.group(2));
            }
        }
        throw new AssertionError("no sample of " + name + " with " + List.of(labels) + " in\n" + metrics);
    }
}
