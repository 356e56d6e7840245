package dev.ratelimit.deployment.http;

import static org.hamcrest.Matchers.notNullValue;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;
import io.smallrye.common.annotation.NonBlocking;

/**
 * A limited resource method may be declared by a superclass of the resource class or by a JAX-RS interface it
 * implements: the HTTP filter finds its limits there, decides before the method runs and answers 429 with the
 * headers. Before, it looked only under the resource class: the interface's method was never limited, and the
 * inherited non-blocking one was left to the interceptor, which cannot wait on the event loop (500).
 */
class InheritedResourceMethodTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Base.class, Sub.class, Api.class, ApiImpl.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.inherited.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.inherited.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.declared.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.declared.window", "1m");

    public abstract static class Base {
        @GET
        @Path("/inherited")
        @NonBlocking
        @RateLimit("inherited")
        public String inherited() {
            return "inherited";
        }
    }

    @Path("/sub")
    public static class Sub extends Base {
    }

    @Path("/api")
    public interface Api {
        @GET
        @Path("/declared")
        @RateLimit("declared")
        String declared();
    }

    public static class ApiImpl implements Api {
        @Override
        public String declared() {
            return "declared";
        }
    }

    @Test
    void aMethodInheritedFromASuperclassIsLimitedByTheFilter() {
        assertTwoThenDenied("/sub/inherited");
    }

    @Test
    void aMethodDeclaredByAJaxRsInterfaceIsLimited() {
        assertTwoThenDenied("/api/declared");
    }

    private static void assertTwoThenDenied(String path) {
        for (int i = 0; i < 2; i++) {
            RestAssured.get(path).then().statusCode(200).header("RateLimit-Policy", notNullValue());
        }
        RestAssured.get(path).then().statusCode(429).header("Retry-After", notNullValue());
    }
}
