package dev.ratelimit.deployment.devui;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusDevModeTest;
import io.vertx.core.json.JsonObject;

/**
 * {@link LiveDevUiScenarios} in process: dev mode with no Redis configured and none from Dev Services (the build
 * machine has no container runtime), the zero-configuration default.
 */
class LiveDevUiLocalTest extends LiveDevUiScenarios {

    @RegisterExtension
    static final QuarkusDevModeTest TEST = application("");

    @Override
    void statusNamesTheBackend(JsonObject status) {
        assertEquals("local", status.getString("backend"), status::toString);
        assertTrue(status.getString("reason").startsWith("Dev mode without Redis: none is configured "
                + "(quarkus.redis.hosts)"), status::toString);
        assertFalse(status.containsKey("redis"), status::toString);
        assertEquals("none (in-process backend)", status.getString("circuitBreaker"), status::toString);
    }

    /** The page itself is served where Dev UI loads an extension's components from. */
    @Test
    void thePageIsServed() throws Exception {
        String page = given().get(application.toURI().resolve("q/dev-ui/" + DevUiJsonRpc.NAMESPACE + "/qwc-ratelimit-live.js"))
                .then().statusCode(200).extract().asString();
        assertTrue(page.contains("customElements.define('qwc-ratelimit-live'"), page);
    }
}
