package dev.ratelimit.deployment.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Singleton;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.QuarkusUnitTest;

/**
 * An application with OpenTelemetry tracing whose spans go to an in-memory exporter, each as soon as it ends, and the
 * means to read them. quarkus-opentelemetry is added to these tests alone, as Micrometer is to its tests.
 */
final class Traces {

    static final String EVENT = "ratelimit.decision";
    static final AttributeKey<List<String>> POLICIES = AttributeKey.stringArrayKey("ratelimit.policies");
    static final AttributeKey<Boolean> ALLOWED = AttributeKey.booleanKey("ratelimit.allowed");
    static final AttributeKey<String> DECIDED_BY = AttributeKey.stringKey("ratelimit.decided_by");
    static final AttributeKey<String> POLICY = AttributeKey.stringKey("ratelimit.policy");
    static final AttributeKey<Long> REMAINING = AttributeKey.longKey("ratelimit.remaining");
    static final AttributeKey<Double> RETRY_AFTER = AttributeKey.doubleKey("ratelimit.retry_after");
    static final AttributeKey<List<String>> SHADOW_DENIED = AttributeKey.stringArrayKey("ratelimit.shadow_denied");
    static final AttributeKey<Long> BATCH_SIZE = AttributeKey.longKey("ratelimit.batch.size");
    static final AttributeKey<String> URL_PATH = AttributeKey.stringKey("url.path");

    private Traces() {
    }

    /** The application: OpenTelemetry with the in-memory exporter (no OTLP), and the classes given. */
    static QuarkusUnitTest application(Class<?>... classes) {
        return new QuarkusUnitTest()
                .withApplicationRoot(jar -> jar.addClasses(Traces.class, Exporter.class).addClasses(classes))
                .setForcedDependencies(List.of(Dependency.of("io.quarkus", "quarkus-opentelemetry-deployment",
                        Version.getVersion())))
                .overrideConfigKey("quarkus.otel.exporter.otlp.enabled", "false")
                .overrideConfigKey("quarkus.http.test-port", "0")
                .overrideConfigKey("quarkus.redis.devservices.enabled", "false");
    }

    /**
     * The exporter the application's spans end in, each as soon as it ends (a simple processor, where the exporters
     * Quarkus finds as {@code SpanExporter} beans are batched, every 5 s by default): typed as itself alone, so that
     * Quarkus does not batch it as well.
     */
    @ApplicationScoped
    public static class Exporter {
        @Produces
        @Singleton
        @Typed(InMemorySpanExporter.class)
        InMemorySpanExporter exporter() {
            return InMemorySpanExporter.create();
        }

        @Produces
        @Singleton
        SpanProcessor processor(InMemorySpanExporter exporter) {
            return SimpleSpanProcessor.create(exporter);
        }
    }

    /** The server span of the one request to {@code path} since the exporter was last reset, once it has ended. */
    static SpanData serverSpan(InMemorySpanExporter exporter, String path) throws InterruptedException {
        List<SpanData> found = List.of();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            found = exporter.getFinishedSpanItems().stream()
                    .filter(s -> s.getKind() == SpanKind.SERVER && path.equals(s.getAttributes().get(URL_PATH)))
                    .toList();
            if (!found.isEmpty()) {
                break;
            }
            Thread.sleep(20);
        }
        assertEquals(1, found.size(), () -> "one server span for " + path + " in " + exporter.getFinishedSpanItems());
        return found.get(0);
    }

    /** The decision events of a span. */
    static List<EventData> decisions(SpanData span) {
        return span.getEvents().stream().filter(e -> EVENT.equals(e.getName())).toList();
    }

    /** The one decision event of a span. */
    static EventData decision(SpanData span) {
        List<EventData> events = decisions(span);
        assertEquals(1, events.size(), () -> "one decision event on " + span);
        return events.get(0);
    }

    /** The spans of decisions of their own. */
    static List<SpanData> decisionSpans(InMemorySpanExporter exporter) {
        return exporter.getFinishedSpanItems().stream().filter(s -> EVENT.equals(s.getName())).toList();
    }
}
