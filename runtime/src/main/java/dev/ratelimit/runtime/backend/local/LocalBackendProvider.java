package dev.ratelimit.runtime.backend.local;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.ratelimit.runtime.backend.BackendProvider;
import dev.ratelimit.runtime.backend.RateLimitBackend;

/** {@code quarkus.ratelimit.backend=local}: every instance decides alone, in process. */
@Singleton
public class LocalBackendProvider implements BackendProvider {

    private static final Logger LOG = Logger.getLogger(LocalBackendProvider.class);

    /** The name that selects it. */
    public static final String NAME = "local";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public RateLimitBackend create(RateLimitBackend inProcess) {
        LOG.debug("Rate limits are decided in process (quarkus.ratelimit.backend=local)");
        return inProcess;
    }

    @Override
    public String reason() {
        return "Configured: quarkus.ratelimit.backend=local.";
    }
}
