package dev.ratelimit.deployment.devui;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.eclipse.microprofile.config.ConfigProvider;

import dev.ratelimit.deployment.RateLimitedMethodBuildItem;
import dev.ratelimit.deployment.validation.BuildTimePolicies;
import dev.ratelimit.runtime.devui.RateLimitJsonRpcService;
import dev.ratelimit.runtime.metrics.DecisionTally;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.deployment.IsLocalDevelopment;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.devui.spi.JsonRPCProvidersBuildItem;
import io.quarkus.devui.spi.page.CardPageBuildItem;
import io.quarkus.devui.spi.page.Page;

/**
 * The Dev UI card: which methods are limited by which policies, the policies (with their plans) as configured, and a
 * live page (backend, circuit breaker, decisions per policy, a key's state read or reset) fed by
 * {@link RateLimitJsonRpcService}. All of it exists in dev mode only.
 */
class RateLimitDevUIProcessor {

    /** What the live page asks the running application. */
    @BuildStep(onlyIf = IsLocalDevelopment.class)
    JsonRPCProvidersBuildItem jsonRpcService() {
        return new JsonRPCProvidersBuildItem(RateLimitJsonRpcService.class);
    }

    /**
     * Counts the decisions per policy and outcome for the live page. Only in dev mode: elsewhere nothing counts them
     * but Micrometer, when the application has it.
     */
    @BuildStep(onlyIf = IsLocalDevelopment.class)
    AdditionalBeanBuildItem decisionTally() {
        return AdditionalBeanBuildItem.unremovableOf(DecisionTally.class);
    }

    // local dev mode, as the live page's service: the Dev UI is served there only
    @BuildStep(onlyIf = IsLocalDevelopment.class)
    CardPageBuildItem card(List<RateLimitedMethodBuildItem> methods) {
        List<Map<String, String>> limited = new ArrayList<>();
        for (RateLimitedMethodBuildItem m : methods) {
            Map<String, String> row = new LinkedHashMap<>();
            row.put("method", m.method().declaringClass().name().withoutPackagePrefix() + "#" + m.method().name());
            row.put("policies", m.specs().stream()
                    .map(s -> s.policy() + (s.cost() != 1 ? " (cost " + s.cost() + ")" : "")
                            + (s.key().isEmpty() ? "" : " [key " + s.key() + "]"))
                    .collect(Collectors.joining(", ")));
            limited.add(row);
        }
        BuildTimePolicies policies = new BuildTimePolicies(ConfigProvider.getConfig());
        List<Map<String, String>> table = new ArrayList<>();
        for (String name : policies.names()) {
            Map<String, String> row = new LinkedHashMap<>();
            row.put("policy", name);
            for (String attribute : List.of("algorithm", "limit", "window", "burst", "key", "paths", "mode")) {
                row.put(attribute, policies.raw(name, attribute).orElse(""));
            }
            row.put("plans", policies.plans(name).stream().map(plan -> plan + " ("
                    + List.of("limit", "window", "burst").stream()
                            .flatMap(a -> policies.raw(name, plan, a).map(v -> a + " " + v).stream())
                            .collect(Collectors.joining(", "))
                    + ")").collect(Collectors.joining("; ")));
            table.add(row);
        }
        CardPageBuildItem card = new CardPageBuildItem();
        card.addPage(Page.webComponentPageBuilder()
                .title("Live")
                .icon("font-awesome-solid:heart-pulse")
                .componentLink("qwc-ratelimit-live.js"));
        card.addBuildTimeData("limitedMethods", limited);
        card.addBuildTimeData("policies", table);
        card.addPage(Page.tableDataPageBuilder("Limited methods")
                .icon("font-awesome-solid:gauge-high")
                .staticLabel(String.valueOf(limited.size()))
                .buildTimeDataKey("limitedMethods")
                .showColumn("method")
                .showColumn("policies"));
        card.addPage(Page.tableDataPageBuilder("Policies")
                .icon("font-awesome-solid:sliders")
                .staticLabel(String.valueOf(table.size()))
                .buildTimeDataKey("policies")
                .showColumn("policy").showColumn("algorithm").showColumn("limit").showColumn("window")
                .showColumn("burst").showColumn("plans").showColumn("key").showColumn("paths").showColumn("mode"));
        return card;
    }
}
