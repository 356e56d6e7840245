package dev.ratelimit.runtime.openapi;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

import dev.ratelimit.runtime.config.ConfiguredPolicies;
import dev.ratelimit.runtime.config.HttpConfig.HeaderFamily;
import dev.ratelimit.runtime.config.RateLimitBuildTimeConfig;
import dev.ratelimit.runtime.config.RateLimitRuntimeConfig;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.policy.PolicyRegistry;
import io.quarkus.arc.Arc;
import io.quarkus.arc.ArcContainer;
import io.quarkus.smallrye.openapi.OpenApiFilter;

/**
 * Documents rate limiting in the OpenAPI document: every operation a policy applies to, by annotation (as the build
 * found them, see {@link AnnotatedOperations}) or by {@code paths}, gets a {@code 429} response with
 * {@code Retry-After}, the rate-limit headers and the problem body, and its 2xx responses the rate-limit headers.
 * <p>
 * It runs once when the application starts, not at build time: {@code paths}, {@code methods}, {@code mode} and the
 * header families are runtime configuration, and the document must say what this start enforces. A policy in
 * {@code shadow} mode never denies, so it adds headers but no 429. Registered (by the build, only when the
 * application has SmallRye OpenAPI and Quarkus REST, and {@code quarkus.ratelimit.openapi.enabled} is true) as the one
 * class referencing the OpenAPI API, an optional dependency.
 */
@OpenApiFilter(stages = OpenApiFilter.RunStage.RUNTIME_STARTUP)
public class RateLimitOpenApiFilter implements OASFilter {

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        ArcContainer arc = Arc.container();
        if (arc == null || !arc.isRunning() || openAPI.getPaths() == null || openAPI.getPaths().getPathItems() == null) {
            // Quarkus also runs start-up filters during the build (for the document it stores there), where no
            // runtime configuration exists: the document served at run time is the one that counts
            return;
        }
        RateLimitRuntimeConfig config = arc.select(RateLimitRuntimeConfig.class).get();
        List<HeaderFamily> families = config.http().headers();
        RateLimitResponses responses = new RateLimitResponses(families.contains(HeaderFamily.IETF),
                families.contains(HeaderFamily.LEGACY));
        PolicyRegistry policies = ConfiguredPolicies.valid(config);
        List<Policy> pathPolicies = new ArrayList<>();
        for (Policy p : byName(policies).values()) {
            if (!p.paths().isEmpty()) {
                pathPolicies.add(p);
            }
        }
        boolean limited = false;
        for (Map.Entry<String, PathItem> path : openAPI.getPaths().getPathItems().entrySet()) {
            Map<PathItem.HttpMethod, Operation> operations = path.getValue().getOperations();
            if (operations == null) {
                continue;
            }
            for (Map.Entry<PathItem.HttpMethod, Operation> operation : operations.entrySet()) {
                List<Policy> applied = applied(policies, pathPolicies, operation.getKey().name(), path.getKey());
                if (!applied.isEmpty()) {
                    document(operation.getValue(), applied, responses);
                    limited = true;
                }
            }
        }
        if (limited) {
            if (openAPI.getComponents() == null) {
                openAPI.setComponents(OASFactory.createComponents());
            }
            responses.addComponents(openAPI.getComponents());
        }
        RateLimitBuildTimeConfig build = arc.select(RateLimitBuildTimeConfig.class).get();
        if (build.admin().enabled()) {
            documentAdmin(openAPI, build);
        }
    }

    /**
     * The operators' endpoint ({@code quarkus.ratelimit.admin.enabled}), under the management root on the management
     * interface: each path with that server of its own (another port than the application's), tagged
     * {@code rate-limit admin}, with its roles and answers.
     */
    private static void documentAdmin(OpenAPI openAPI, RateLimitBuildTimeConfig build) {
        org.eclipse.microprofile.config.Config c = org.eclipse.microprofile.config.ConfigProvider.getConfig();
        String root = c.getOptionalValue("quarkus.management.root-path", String.class).orElse("/q");
        root = (root.startsWith("/") ? root : "/" + root).replaceAll("/+$", "") + "/ratelimit";
        int port = c.getOptionalValue("quarkus.management.port", Integer.class).orElse(9000);
        org.eclipse.microprofile.openapi.models.servers.Server management = OASFactory.createServer()
                .url("http://localhost:" + port).description("The management interface (quarkus.management.*), not "
                        + "the application's server");
        String read = "Needs the role '" + build.admin().readRole() + "' or '" + build.admin().writeRole() + "'.";
        String write = "Needs the role '" + build.admin().writeRole() + "'.";
        String policy = root + "/policies/{policy}";
        String key = policy + "/keys/{identity}";
        adminPath(openAPI, management, root + "/policies", PathItem.HttpMethod.GET,
                "The policies and their values, with their plans' values", read);
        adminPath(openAPI, management, key, PathItem.HttpMethod.GET,
                "A key's state, charging nothing (identity: as the policy derives it, or as the keys store it)", read);
        adminPath(openAPI, management, key, PathItem.HttpMethod.DELETE, "Resets a key on every instance", write);
        adminPath(openAPI, management, key + "/override", PathItem.HttpMethod.PUT,
                "Sets a key's own values: a JSON object with any of limit, window, burst, plan, expiresAfter, "
                        + "expiresAt", write);
        adminPath(openAPI, management, key + "/override", PathItem.HttpMethod.DELETE, "Clears a key's override",
                write);
        adminPath(openAPI, management, policy + "/limited", PathItem.HttpMethod.GET,
                "The keys the policy denied most over the last 5 minutes, on every instance", read);
    }

    private static void adminPath(OpenAPI openAPI, org.eclipse.microprofile.openapi.models.servers.Server server,
            String path, PathItem.HttpMethod method, String summary, String roles) {
        if (openAPI.getPaths() == null) {
            openAPI.setPaths(OASFactory.createPaths());
        }
        PathItem item = openAPI.getPaths().getPathItem(path);
        if (item == null) {
            item = OASFactory.createPathItem().servers(List.of(server));
            openAPI.getPaths().addPathItem(path, item);
        }
        APIResponses answers = OASFactory.createAPIResponses()
                .addAPIResponse("200", OASFactory.createAPIResponse().description("JSON"))
                .addAPIResponse("401", OASFactory.createAPIResponse().description("No credentials"))
                .addAPIResponse("403", OASFactory.createAPIResponse().description("Without the role it needs"));
        if (path.contains("{policy}")) {
            answers.addAPIResponse("404", OASFactory.createAPIResponse().description("No such policy"));
        }
        item.setOperation(method, OASFactory.createOperation().summary(summary).description(roles)
                .addTag("rate-limit admin").responses(answers));
    }

    /** The policies of an operation, as the REST filter applies them: its annotations', then matching path policies. */
    private static List<Policy> applied(PolicyRegistry policies, List<Policy> pathPolicies, String method, String path) {
        List<Policy> applied = new ArrayList<>();
        List<String> annotated = AnnotatedOperations.policies(method, path);
        for (String name : annotated) {
            if (policies.contains(name)) {
                applied.add(policies.get(name));
            }
        }
        for (Policy p : pathPolicies) {
            if (!annotated.contains(p.name()) && appliesTo(p, method, path)) {
                applied.add(p);
            }
        }
        return applied;
    }

    private static boolean appliesTo(Policy p, String method, String path) {
        String m = method.toUpperCase(Locale.ROOT);
        // a HEAD answered by a GET method counts as a GET (the document lists the GET)
        if (!p.methods().isEmpty() && !p.methods().contains(m) && !("HEAD".equals(m) && p.methods().contains("GET"))) {
            return false;
        }
        for (String pattern : p.paths()) {
            if (PathTemplates.mayMatch(pattern, path)) {
                return true;
            }
        }
        return false;
    }

    private static void document(Operation operation, List<Policy> applied, RateLimitResponses responses) {
        APIResponses documented = operation.getResponses();
        if (documented == null) {
            documented = OASFactory.createAPIResponses();
            operation.setResponses(documented);
        }
        if (documented.getAPIResponses() != null) {
            for (Map.Entry<String, APIResponse> r : documented.getAPIResponses().entrySet()) {
                if (r.getKey().startsWith("2")) {
                    addLimitHeaders(r.getValue(), responses);
                }
            }
        }
        List<String> enforced = new ArrayList<>();
        for (Policy p : applied) {
            if (!p.shadow()) {
                enforced.add(p.name());
            }
        }
        // a 429 the application documented itself is left as it wrote it
        if (!enforced.isEmpty() && !documented.hasAPIResponse("429")) {
            documented.addAPIResponse("429", responses.tooManyRequests(enforced));
        }
    }

    private static void addLimitHeaders(APIResponse response, RateLimitResponses responses) {
        for (String name : responses.limitHeaders()) {
            if (response.getHeaders() == null || !response.getHeaders().containsKey(name)) {
                response.addHeader(name, RateLimitResponses.ref(name));
            }
        }
    }

    private static Map<String, Policy> byName(PolicyRegistry policies) {
        Map<String, Policy> all = new TreeMap<>();
        for (Policy p : policies.all()) {
            all.put(p.name(), p);
        }
        return all;
    }
}
