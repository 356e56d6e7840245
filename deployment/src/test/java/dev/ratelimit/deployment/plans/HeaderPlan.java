package dev.ratelimit.deployment.plans;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import dev.ratelimit.PlanResolver;
import io.vertx.core.http.HttpServerRequest;

/** The test applications' plan resolver: the plan is the request's {@code X-Plan} header; it remembers what it was asked. */
@ApplicationScoped
public class HeaderPlan implements PlanResolver {

    static final String HEADER = "X-Plan";
    /** The policies it was asked about. */
    static final Set<String> ASKED = ConcurrentHashMap.newKeySet();

    @Override
    public String plan(String policy, HttpServerRequest request) {
        ASKED.add(policy);
        return request.getHeader(HEADER);
    }
}
