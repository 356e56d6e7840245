package dev.ratelimit.it;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import dev.ratelimit.Exemption;
import io.vertx.core.http.HttpServerRequest;

/**
 * The monitoring probe's requests to the public pages are not counted: it sends the token configured as
 * {@code demo.monitoring-token} in {@code X-Monitoring-Token}. Every other policy counts it as any client.
 */
@ApplicationScoped
public class MonitoringExemption implements Exemption {

    @ConfigProperty(name = "demo.monitoring-token")
    String token;

    @Override
    public boolean exempt(String policy, HttpServerRequest request) {
        return policy.equals("public") && token.equals(request.getHeader("X-Monitoring-Token"));
    }
}
