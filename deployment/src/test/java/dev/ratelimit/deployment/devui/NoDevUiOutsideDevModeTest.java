package dev.ratelimit.deployment.devui;

import static org.junit.jupiter.api.Assertions.assertFalse;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.runtime.devui.RateLimitJsonRpcService;
import dev.ratelimit.runtime.metrics.DecisionTally;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Outside dev mode the live page costs nothing: neither its JSON-RPC service nor the decision counts it reads exist,
 * so the limiter reports to Micrometer alone (or to nothing).
 */
class NoDevUiOutsideDevModeTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1h");

    @Inject
    Instance<DecisionTally> tally;

    @Inject
    Instance<RateLimitJsonRpcService> service;

    @Test
    void neitherTheServiceNorTheCountsExist() {
        assertFalse(tally.isResolvable(), "decision counts outside dev mode");
        assertFalse(service.isResolvable(), "the Dev UI service outside dev mode");
    }
}
