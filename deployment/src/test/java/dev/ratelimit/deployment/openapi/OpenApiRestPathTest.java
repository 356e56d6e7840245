package dev.ratelimit.deployment.openapi;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;
import io.restassured.path.json.JsonPath;

/**
 * Under {@code quarkus.rest.path}, the document's paths carry the prefix: annotated operations are found under it, and
 * {@code paths} policies match the full path, as the filter matches requests.
 */
class OpenApiRestPathTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = LimitedApi.application()
            .overrideConfigKey("quarkus.rest.path", "/rest")
            .overrideConfigKey("quarkus.ratelimit.policies.public.paths", "/rest/open/*")
            .overrideConfigKey("quarkus.ratelimit.policies.reads.paths", "/catalog");

    @Test
    void annotatedAndPathOperationsAreFoundUnderThePrefix() {
        JsonPath doc = LimitedApi.document();
        assertThat(doc.getMap("paths.'/rest/orders'.get.responses"), hasKey("429"));
        assertThat(doc.getMap("paths.'/rest/limited/b'.get.responses"), hasKey("429"));
        assertThat(doc.getMap("paths.'/rest/open/{id}'.get.responses"), hasKey("429"));
        // /catalog is no path of this application: /rest/catalog is, and the policy does not apply to it
        assertThat(doc.getMap("paths.'/rest/catalog'.get.responses"), not(hasKey("429")));
        given().get("/rest/open/1").then().statusCode(200);
        given().get("/rest/open/2").then().statusCode(200);
        given().get("/rest/open/3").then().statusCode(429);
    }
}
