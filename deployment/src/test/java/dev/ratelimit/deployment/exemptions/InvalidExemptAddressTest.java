package dev.ratelimit.deployment.exemptions;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/** An entry of {@code exempt-addresses} that is neither an address nor a CIDR block fails, naming the property. */
class InvalidExemptAddressTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.api.exempt-addresses", "10.0.0.0/8,10.0.0.0/33")
            .assertException(t -> {
                Throwable c = t;
                while (c != null) {
                    String m = String.valueOf(c.getMessage());
                    if (m.contains("'10.0.0.0/33'") && m.contains("quarkus.ratelimit.policies.api.exempt-addresses")) {
                        return;
                    }
                    c = c.getCause();
                }
                fail("the failure names neither the entry nor the property", t);
            });

    @Test
    void failsNamingTheProperty() {
        fail("the build must fail");
    }
}
