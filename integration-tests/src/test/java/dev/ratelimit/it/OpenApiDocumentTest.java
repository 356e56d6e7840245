package dev.ratelimit.it;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;

import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;

/**
 * The application has SmallRye OpenAPI: {@code /q/openapi} documents the 429 of the operations limited by annotation
 * and by {@code paths}, with the headers and the problem body as components, and none on a shadow-only operation.
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class OpenApiDocumentTest {

    private static JsonPath document() {
        return given().queryParam("format", "json").get("/q/openapi").then().statusCode(200).extract().jsonPath();
    }

    @Test
    void annotatedOperationsDocumentTheir429() {
        JsonPath doc = document();
        assertThat(doc.getString("paths.'/orders'.post.responses.'429'.description"),
                allOf(containsString("'api'"), containsString("'writes'")));
        assertThat(doc.getString("paths.'/orders'.get.responses.'429'.headers.'Retry-After'.'$ref'"),
                equalTo("#/components/headers/Retry-After"));
        assertThat(doc.getString("paths.'/orders'.get.responses.'429'.content.'application/problem+json'.schema.'$ref'"),
                equalTo("#/components/schemas/RateLimitProblem"));
    }

    @Test
    void operationsMatchedByPathsDocumentTheir429() {
        JsonPath doc = document();
        assertThat(doc.getString("paths.'/public/{page}'.get.responses.'429'.description"), containsString("'public'"));
        assertThat(doc.getString("paths.'/api/login'.get.responses.'429'.description"), containsString("'login'"));
        // a policy counting failures only still denies, once they reach its limit
        assertThat(doc.getString("paths.'/api/sign-in'.post.responses.'429'.description"), containsString("'sign-in'"));
        // a method settling its cost is denied when its estimate does not fit
        assertThat(doc.getString("paths.'/api/complete'.post.responses.'429'.description"),
                containsString("'llm-tokens'"));
    }

    @Test
    void theComponentsAreThere() {
        JsonPath doc = document();
        assertThat(doc.getMap("components.headers"), allOf(hasKey("Retry-After"), hasKey("RateLimit"),
                hasKey("RateLimit-Policy"), hasKey("X-RateLimit-Limit"), hasKey("X-RateLimit-Remaining"),
                hasKey("X-RateLimit-Reset")));
        assertThat(doc.getMap("components.schemas.RateLimitProblem.properties"), hasKey("violated-policies"));
    }

    @Test
    void aShadowOnlyOperationDocumentsNo429() {
        assertThat(document().getMap("paths.'/algorithms/shadow'.get.responses"), not(hasKey("429")));
    }
}
