package dev.ratelimit.deployment.openapi;

import java.util.List;

import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

import dev.ratelimit.RateLimit;
import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;

/** The resources of the OpenAPI tests: limited by annotation, by class, through an interface, by path, or not at all. */
final class LimitedApi {

    private LimitedApi() {
    }

    /** The document, as JSON, over HTTP. */
    static JsonPath document() {
        return RestAssured.given().queryParam("format", "json").get("/q/openapi").then().statusCode(200).extract()
                .jsonPath();
    }

    /** An application with these resources and their policies, on the in-process backend (the document needs no Redis). */
    static QuarkusUnitTest application() {
        return new QuarkusUnitTest()
                .withApplicationRoot(jar -> jar.addClasses(LimitedApi.class, Orders.class, ClassLimited.class,
                        Catalog.class, Open.class, Shadowed.class, Declared.class, DeclaredImpl.class))
                // SmallRye OpenAPI in these tests alone: the others run without it, as most applications do
                .setForcedDependencies(List.of(Dependency.of("io.quarkus", "quarkus-smallrye-openapi-deployment",
                        Version.getVersion())))
                .overrideConfigKey("quarkus.http.test-port", "0")
                .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
                .overrideConfigKey("quarkus.ratelimit.backend", "local")
                .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "100")
                .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m")
                .overrideConfigKey("quarkus.ratelimit.policies.writes.limit", "20")
                .overrideConfigKey("quarkus.ratelimit.policies.writes.window", "1h")
                .overrideConfigKey("quarkus.ratelimit.policies.dark.limit", "1")
                .overrideConfigKey("quarkus.ratelimit.policies.dark.window", "1m")
                .overrideConfigKey("quarkus.ratelimit.policies.dark.mode", "shadow")
                // a policy by path only, limiting nothing annotated
                .overrideConfigKey("quarkus.ratelimit.policies.public.paths", "/open/*")
                .overrideConfigKey("quarkus.ratelimit.policies.public.limit", "2")
                .overrideConfigKey("quarkus.ratelimit.policies.public.window", "1m")
                // by path, reads only
                .overrideConfigKey("quarkus.ratelimit.policies.reads.paths", "/catalog")
                .overrideConfigKey("quarkus.ratelimit.policies.reads.methods", "GET")
                .overrideConfigKey("quarkus.ratelimit.policies.reads.limit", "50")
                .overrideConfigKey("quarkus.ratelimit.policies.reads.window", "1m");
    }

    @Path("/orders")
    public static class Orders {
        @GET
        @RateLimit("api")
        public String list() {
            return "[]";
        }

        @POST
        @RateLimit("api")
        @RateLimit(value = "writes", cost = 5)
        public String create(String order) {
            return order;
        }

        @GET
        @Path("/{id: [0-9]{1,6}}")
        @RateLimit("api")
        public String one(@PathParam("id") String id) {
            return id;
        }

        @DELETE
        @RateLimit("api")
        @APIResponse(responseCode = "204", description = "Deleted")
        @APIResponse(responseCode = "429", description = "Slow down")
        public void clear() {
        }

        @GET
        @Path("/count")
        public String count() {
            return "0";
        }
    }

    @Path("/limited")
    @RateLimit("api")
    public static class ClassLimited {
        @GET
        public String a() {
            return "a";
        }

        @GET
        @Path("/b")
        public String b() {
            return "b";
        }
    }

    @Path("/catalog")
    public static class Catalog {
        @GET
        public String read() {
            return "read";
        }

        @POST
        public String write(String item) {
            return item;
        }
    }

    @Path("/open")
    public static class Open {
        @GET
        @Path("/{id}")
        public String item(@PathParam("id") String id) {
            return id;
        }
    }

    @Path("/shadowed")
    public static class Shadowed {
        @GET
        @RateLimit("dark")
        public String get() {
            return "shadowed";
        }
    }

    @Path("/declared")
    public interface Declared {
        @GET
        @RateLimit("writes")
        String get();
    }

    public static class DeclaredImpl implements Declared {
        @Override
        public String get() {
            return "declared";
        }
    }
}
