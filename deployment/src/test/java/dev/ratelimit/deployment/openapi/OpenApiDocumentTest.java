package dev.ratelimit.deployment.openapi;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;
import io.restassured.path.json.JsonPath;

/**
 * With quarkus-smallrye-openapi, {@code /q/openapi} documents a 429 (Retry-After, the rate-limit headers, the problem
 * body) on every operation a policy may deny, whether by annotation, on the class, through a JAX-RS interface or by
 * {@code paths}, and on no other.
 */
class OpenApiDocumentTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = LimitedApi.application();

    private static final String[] HEADERS = { "Retry-After", "RateLimit-Policy", "RateLimit", "X-RateLimit-Limit",
            "X-RateLimit-Remaining", "X-RateLimit-Reset" };

    @Test
    void anAnnotatedOperationDocumentsA429WithEveryHeaderAndTheProblemBody() {
        JsonPath doc = LimitedApi.document();
        String tooMany = "paths.'/orders'.get.responses.'429'";
        for (String header : HEADERS) {
            assertThat(header, doc.getString(tooMany + ".headers.'" + header + "'.'$ref'"),
                    equalTo("#/components/headers/" + header));
        }
        assertThat(
                doc.getString(tooMany + ".content.'application/problem+json'.schema.'$ref'"),
                equalTo("#/components/schemas/RateLimitProblem"));
        assertThat(doc.getString(tooMany + ".description"), containsString("'api'"));
    }

    @Test
    void theComponentsDescribeTheHeadersAndTheProblem() {
        JsonPath doc = LimitedApi.document();
        for (String header : HEADERS) {
            assertThat(header, doc.getMap("components.headers.'" + header + "'"),
                    hasKey("schema"));
        }
        assertThat(doc.getString("components.headers.'Retry-After'.schema.type"),
                equalTo("integer"));
        assertThat(doc.getMap("components.schemas.RateLimitProblem.properties"),
                allOf(hasKey("type"), hasKey("title"), hasKey("status"), hasKey("detail"), hasKey("violated-policies"),
                        hasKey("policy"), hasKey("retryAfter")));
        assertThat(
                doc.getString("components.schemas.RateLimitProblem.properties.type.example"),
                equalTo("https://iana.org/assignments/http-problem-types#quota-exceeded"));
    }

    @Test
    void everyPolicyOfAnOperationIsNamed() {
        String description = LimitedApi.document().getString("paths.'/orders'.post.responses.'429'.description");
        assertThat(description, allOf(containsString("'api'"), containsString("'writes'")));
    }

    @Test
    void aLimitedOperationsSuccessCarriesTheRateLimitHeaders() {
        JsonPath doc = LimitedApi.document();
        assertThat(doc.getMap("paths.'/orders'.get.responses.'200'.headers"),
                allOf(hasKey("RateLimit"), hasKey("RateLimit-Policy"), hasKey("X-RateLimit-Remaining"),
                        not(hasKey("Retry-After"))));
    }

    @Test
    void aTemplateWithARegularExpressionIsFound() {
        assertThat(LimitedApi.document().getMap("paths.'/orders/{id}'.get.responses"), hasKey("429"));
    }

    @Test
    void anUnlimitedOperationDocumentsNo429() {
        JsonPath doc = LimitedApi.document();
        assertThat(doc.getMap("paths.'/orders/count'.get.responses"),
                allOf(hasKey("200"), not(hasKey("429"))));
        assertThat(doc.getMap("paths.'/orders/count'.get.responses.'200'.headers"),
                nullValue());
    }

    @Test
    void aClassLevelAnnotationCoversItsMethods() {
        JsonPath doc = LimitedApi.document();
        assertThat(doc.getMap("paths.'/limited'.get.responses"), hasKey("429"));
        assertThat(doc.getMap("paths.'/limited/b'.get.responses"), hasKey("429"));
    }

    @Test
    void aMethodLimitedOnItsJaxRsInterfaceIsDocumented() {
        assertThat(LimitedApi.document().getString("paths.'/declared'.get.responses.'429'.description"),
                containsString("'writes'"));
    }

    @Test
    void anOperationMatchedByAPathPolicyIsDocumentedAndDenied() {
        assertThat(
                LimitedApi.document().getString("paths.'/open/{id}'.get.responses.'429'.description"), containsString("'public'"));
        // what the document says is what the filter does
        given().get("/open/1").then().statusCode(200);
        given().get("/open/2").then().statusCode(200);
        given().get("/open/3").then().statusCode(429).header("Retry-After", notNullValue())
                .body("'violated-policies'", hasItems("public"));
    }

    @Test
    void aPathPolicyLimitedToSomeMethodsDocumentsOnlyThose() {
        JsonPath doc = LimitedApi.document();
        assertThat(doc.getMap("paths.'/catalog'.get.responses"), hasKey("429"));
        assertThat(doc.getMap("paths.'/catalog'.post.responses"), not(hasKey("429")));
    }

    @Test
    void aShadowPolicyNeverDeniesSoItDocumentsHeadersButNo429() {
        JsonPath doc = LimitedApi.document();
        assertThat(doc.getMap("paths.'/shadowed'.get.responses"), not(hasKey("429")));
        assertThat(doc.getMap("paths.'/shadowed'.get.responses.'200'.headers"),
                hasKey("RateLimit"));
    }

    @Test
    void a429TheApplicationDocumentsIsKeptAsWritten() {
        JsonPath doc = LimitedApi.document();
        assertThat(doc.getString("paths.'/orders'.delete.responses.'429'.description"), equalTo("Slow down"));
        assertThat(doc.getMap("paths.'/orders'.delete.responses.'204'.headers"), hasKey("RateLimit"));
    }
}
