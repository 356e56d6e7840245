package dev.ratelimit.deployment.devui;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.eclipse.microprofile.config.ConfigProvider;

import dev.ratelimit.deployment.RateLimitedMethodBuildItem;
import dev.ratelimit.deployment.validation.BuildTimePolicies;
import io.quarkus.deployment.IsDevelopment;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.devui.spi.page.CardPageBuildItem;
import io.quarkus.devui.spi.page.Page;

/**
 * The Dev UI card: which methods are limited by which policies, and the policies (with their plans) as configured.
 */
class RateLimitDevUIProcessor {

    @BuildStep(onlyIf = IsDevelopment.class)
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
