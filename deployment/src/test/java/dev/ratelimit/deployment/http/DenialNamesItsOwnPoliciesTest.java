package dev.ratelimit.deployment.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * A 429 describes the policies that denied this request, and only those:
 * <ul>
 * <li>a request refused for a missing key header ({@code missing-header=deny}) lists the path policies that apply to
 * its path, not every path policy of the application;</li>
 * <li>a denial of the interceptor (a bean the resource calls) that becomes the response's 429 carries the {@code pk}
 * of the quota the interceptor counted, not the filter's.</li>
 * </ul>
 */
class DenialNamesItsOwnPoliciesTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Orders.class, Mailer.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.http.missing-header", "deny")
            .overrideConfigKey("quarkus.ratelimit.http.partition-key", "true")
            .overrideConfigKey(P + "orders.paths", "/orders/*")
            .overrideConfigKey(P + "orders.limit", "100")
            .overrideConfigKey(P + "orders.window", "1m")
            .overrideConfigKey(P + "orders.key", "header:X-Tenant")
            .overrideConfigKey(P + "elsewhere.paths", "/invoices/*")
            .overrideConfigKey(P + "elsewhere.limit", "100")
            .overrideConfigKey(P + "elsewhere.window", "1m")
            .overrideConfigKey(P + "mail.limit", "1")
            .overrideConfigKey(P + "mail.window", "1h")
            .overrideConfigKey(P + "mail.key", "global");

    @Path("/orders")
    public static class Orders {
        @Inject
        Mailer mailer;

        @GET
        @Path("/list")
        public String list() {
            return "orders";
        }

        @GET
        @Path("/notify")
        public String notifyTenant() {
            return mailer.send();
        }
    }

    @ApplicationScoped
    public static class Mailer {
        @RateLimit("mail")
        public String send() {
            return "sent";
        }
    }

    private static final Pattern MEMBER = Pattern.compile("\"([^\"]+)\";r=\\d+;t=\\d+(?:;pk=(:[A-Za-z0-9+/]{12}:))?");

    @Test
    void aMissingKeyListsOnlyThePathPoliciesOfItsPath() {
        String policy = RestAssured.get("/orders/list").then().statusCode(429).extract().header("RateLimit-Policy");
        assertTrue(policy.contains("\"orders\""), policy);
        assertFalse(policy.contains("elsewhere"), () -> "a path policy of another path: " + policy);
    }

    @Test
    void anInterceptorDenialCarriesItsOwnPartitionKey() {
        String first = RestAssured.given().header("X-Tenant", "t1").get("/orders/notify").then().statusCode(200)
                .extract().header("RateLimit");
        String denied = RestAssured.given().header("X-Tenant", "t1").get("/orders/notify").then().statusCode(429)
                .extract().header("RateLimit");
        Matcher m = MEMBER.matcher(denied);
        assertTrue(m.find(), denied);
        assertEquals("mail", m.group(1), () -> "the interceptor's policy describes the 429: " + denied);
        String filtersPk = pk(first, "orders");
        assertTrue(m.group(2) != null, () -> "the mail member names its quota: " + denied);
        assertNotEquals(filtersPk, m.group(2), () -> "the pk of the filter's tenant quota on the mail member: " + denied);
    }

    private static String pk(String field, String policy) {
        Matcher m = MEMBER.matcher(field);
        while (m.find()) {
            if (m.group(1).equals(policy)) {
                return m.group(2);
            }
        }
        throw new AssertionError("no member for " + policy + " in " + field);
    }
}
