package dev.ratelimit.deployment.admin;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import java.net.URL;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;

/**
 * With SmallRye OpenAPI, the admin endpoint's operations are in the document, each on the management interface's
 * server (not the application's), tagged, with the role it needs and its answers.
 */
class AdminOpenApiTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .setForcedDependencies(List.of(
                    Dependency.of("io.quarkus", "quarkus-smallrye-openapi-deployment", Version.getVersion()),
                    Dependency.of("io.quarkus", "quarkus-elytron-security-properties-file-deployment",
                            Version.getVersion())))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.management.enabled", "true")
            .overrideConfigKey("quarkus.management.test-port", "0")
            .overrideConfigKey("quarkus.management.auth.enabled", "true")
            .overrideConfigKey("quarkus.management.auth.basic", "true")
            .overrideConfigKey("quarkus.security.users.embedded.enabled", "true")
            .overrideConfigKey("quarkus.ratelimit.admin.enabled", "true")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "3")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1h");

    @TestHTTPResource(value = "/", management = true)
    URL management;

    @Test
    void theAdminOperationsAreDocumentedOnTheManagementServer() {
        JsonPath doc = RestAssured.given().baseUri("http://" + management.getHost()).port(management.getPort())
                .queryParam("format", "json").get("/q/openapi").then().statusCode(200).extract().jsonPath();
        String key = "paths.'/q/ratelimit/policies/{policy}/keys/{identity}'";
        assertThat(doc.getString(key + ".delete.summary"), containsString("Resets"));
        assertThat(doc.getString(key + ".delete.description"), containsString("ratelimit-admin"));
        assertThat(doc.getList(key + ".get.tags"), hasItem("rate-limit admin"));
        assertThat(doc.getString(key + ".servers[0].description"), containsString("management interface"));
        assertThat(doc.getString("paths.'/q/ratelimit/policies/{policy}/limited'.get.responses.'403'.description"),
                equalTo("Without the role it needs"));
        assertThat(doc.getString("paths.'/q/ratelimit/policies'.get.description"), containsString("ratelimit-viewer"));
    }
}
