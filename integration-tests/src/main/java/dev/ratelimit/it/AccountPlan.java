package dev.ratelimit.it;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import dev.ratelimit.PlanResolver;
import io.quarkus.security.identity.SecurityIdentity;
import io.vertx.core.http.HttpServerRequest;

// tag::plan-resolver[]
/**
 * Which plan a request is on: signed-in users with the role {@code premium} are on the plan {@code premium} of every
 * policy that has one; everybody else is on the policies' own values.
 */
@ApplicationScoped
public class AccountPlan implements PlanResolver {

    @Inject
    SecurityIdentity identity;

    @Override
    public String plan(String policy, HttpServerRequest request) {
        return identity.hasRole("premium") ? "premium" : null;
    }
}
// end::plan-resolver[]
