package dev.ratelimit.deployment.openapi;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;
import io.restassured.path.json.JsonPath;

/** {@code quarkus.ratelimit.openapi.enabled=false} leaves the document as SmallRye OpenAPI generates it. */
class OpenApiDisabledTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = LimitedApi.application()
            .overrideConfigKey("quarkus.ratelimit.openapi.enabled", "false");

    @Test
    void noOperationDocumentsA429() {
        JsonPath doc = LimitedApi.document();
        assertThat(doc.getMap("paths.'/orders'.get.responses"), hasKey("200"));
        for (String path : new String[] { "/orders", "/limited", "/open/{id}", "/catalog", "/declared" }) {
            assertThat(path, doc.getMap("paths.'" + path + "'.get.responses"), not(hasKey("429")));
        }
        assertThat(doc.getMap("paths.'/orders'.get.responses.'200'.headers"), nullValue());
        assertThat(doc.getMap("components.headers"), nullValue());
        assertThat(doc.getMap("components.schemas.RateLimitProblem"), nullValue());
    }
}
