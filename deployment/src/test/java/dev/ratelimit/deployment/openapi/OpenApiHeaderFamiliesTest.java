package dev.ratelimit.deployment.openapi;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;
import io.restassured.path.json.JsonPath;

/** The document names the header families the filter sends ({@code quarkus.ratelimit.http.headers}), no others. */
class OpenApiHeaderFamiliesTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = LimitedApi.application()
            .overrideConfigKey("quarkus.ratelimit.http.headers", "ietf");

    @Test
    void onlyTheIetfFieldsBesideRetryAfter() {
        JsonPath doc = LimitedApi.document();
        assertThat(doc.getMap("paths.'/orders'.get.responses.'429'.headers"),
                allOf(hasKey("Retry-After"), hasKey("RateLimit"), hasKey("RateLimit-Policy"),
                        not(hasKey("X-RateLimit-Limit")), not(hasKey("X-RateLimit-Remaining")),
                        not(hasKey("X-RateLimit-Reset"))));
        assertThat(doc.getMap("paths.'/orders'.get.responses.'200'.headers"),
                allOf(hasKey("RateLimit"), not(hasKey("X-RateLimit-Remaining"))));
        assertThat(doc.getMap("components.headers"), allOf(hasKey("RateLimit"), not(hasKey("X-RateLimit-Limit"))));
    }
}
