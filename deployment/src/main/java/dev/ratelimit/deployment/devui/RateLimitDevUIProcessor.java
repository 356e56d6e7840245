package dev.ratelimit.deployment.devui;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.eclipse.microprofile.config.ConfigProvider;

import dev.ratelimit.deployment.RateLimitedMethodBuildItem;
import dev.ratelimit.deployment.validation.BuildTimePolicies;
import dev.ratelimit.runtime.config.PolicyConfig;
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
        BuildTimePolicies policies = BuildTimePolicies.read(ConfigProvider.getConfig());
        List<Map<String, String>> table = new ArrayList<>();
        for (String name : policies.names()) {
            PolicyConfig p = policies.policy(name);
            Map<String, String> row = new LinkedHashMap<>();
            row.put("policy", name);
            row.put("algorithm", p.algorithm().configName());
            row.put("limit", shown(p.limit()));
            row.put("window", p.window().map(RateLimitDevUIProcessor::shown).orElse(""));
            row.put("burst", shown(p.burst()));
            row.put("key", p.key());
            row.put("paths", String.join(",", p.paths().orElse(List.of())));
            row.put("mode", p.mode().configName());
            row.put("plans", new TreeMap<>(p.plans()).entrySet().stream().map(plan -> plan.getKey() + " ("
                    + Stream.of(plan.getValue().limit().isPresent() ? "limit " + shown(plan.getValue().limit()) : null,
                            plan.getValue().window().map(w -> "window " + shown(w)).orElse(null),
                            plan.getValue().burst().isPresent() ? "burst " + shown(plan.getValue().burst()) : null)
                            .filter(Objects::nonNull).collect(Collectors.joining(", "))
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

    private static String shown(OptionalInt value) {
        return value.isPresent() ? String.valueOf(value.getAsInt()) : "";
    }

    /** A duration as users write it ({@code 1m}, {@code 250ms}) where it is a whole number of one unit. */
    static String shown(Duration d) {
        if (d.isZero() || d.toNanos() % 1_000_000 != 0) {
            return d.toString();
        }
        long ms = d.toMillis();
        if (ms % 86_400_000 == 0) {
            return ms / 86_400_000 + "d";
        } else if (ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        } else if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        } else if (ms % 1_000 == 0) {
            return ms / 1_000 + "s";
        }
        return ms + "ms";
    }
}
