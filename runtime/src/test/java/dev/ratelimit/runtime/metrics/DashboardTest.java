package dev.ratelimit.runtime.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The Grafana dashboard the docs ship, the metrics page and the meters the extension registers agree: every meter
 * registered is documented, every meter documented is on the dashboard, and every query of the dashboard names a
 * documented meter (Prometheus names: a counter's {@code _total}, a timer's {@code _seconds_*}).
 */
class DashboardTest {

    private static final Path DOCS = Path.of("..", "docs", "modules", "ROOT");
    private static final Pattern DOCUMENTED = Pattern.compile("^\\|`(ratelimit\\.[a-z.]+)` \\(`(ratelimit_[a-z_]+)`\\)",
            Pattern.MULTILINE);
    private static final Pattern QUERIED = Pattern.compile("ratelimit_[a-z_]+");

    @Test
    void dashboardMetricsPageAndMetersAgree() throws IOException, IllegalAccessException {
        Set<String> registered = new TreeSet<>();
        for (Field f : MicrometerMetrics.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                f.setAccessible(true);
                String v = (String) f.get(null);
                if (v.startsWith("ratelimit.")) {
                    registered.add(v);
                }
            }
        }
        String page = Files.readString(DOCS.resolve("pages/metrics.adoc"));
        Set<String> documented = new TreeSet<>();
        Set<String> documentedProm = new TreeSet<>();
        Matcher m = DOCUMENTED.matcher(page);
        while (m.find()) {
            documented.add(m.group(1));
            documentedProm.add(m.group(2));
        }
        assertEquals(registered, documented, "every meter registered is on the metrics page, and only those");

        JsonObject dashboard = new JsonObject(Files.readString(DOCS.resolve("attachments/ratelimit-dashboard.json")));
        Set<String> queried = new TreeSet<>();
        JsonArray panels = dashboard.getJsonArray("panels");
        for (int i = 0; i < panels.size(); i++) {
            JsonArray targets = panels.getJsonObject(i).getJsonArray("targets");
            for (int j = 0; j < targets.size(); j++) {
                Matcher q = QUERIED.matcher(targets.getJsonObject(j).getString("expr"));
                while (q.find()) {
                    queried.add(q.group().replaceFirst("_(bucket|count|sum|max)$", ""));
                }
            }
        }
        for (String name : queried) {
            assertTrue(documentedProm.contains(name), () -> "the dashboard queries " + name
                    + ", which the metrics page does not document: " + documentedProm);
        }
        for (String name : documentedProm) {
            assertTrue(queried.contains(name), () -> name + " is documented but on no panel of the dashboard");
        }
    }
}
