package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * With Micrometer, an application starts without a single WARN, the Redis client's pool meters are those of its one
 * pool, and the limiter's connections, opened by clients of its own (one per event loop), have meters of their own.
 * <p>
 * The extension used to request its client with a {@code RequestedRedisClientBuildItem}, which made
 * quarkus-redis-client create the client twice: Micrometer refused the second pool's gauges with "This Gauge has been
 * already registered (MeterId{name='redis.pool.queue.size', ...})" at WARN. Micrometer logs only the first refused
 * gauge at WARN and the later ones at DEBUG, so this test listens to its logger at DEBUG too: any refused meter fails
 * it, whichever comes first.
 */
class MicrometerCleanStartTest {

    static final RedisServerProcess REDIS = OwnRedis.of(MicrometerCleanStartTest.class);

    private static final String METER_REGISTRY_LOGGER = "io.micrometer.core.instrument.MeterRegistry";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OwnRedis.class))
            .setForcedDependencies(List.of(Dependency.of("io.quarkus",
                    "quarkus-micrometer-registry-prometheus-deployment", Version.getVersion())))
            .overrideConfigKey("quarkus.redis.hosts", REDIS.uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.redis.max-pool-size", "4")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "3")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m")
            // Quarkus 3.34 binds the Netty metrics of two event loop groups under one gauge id: a WARN at the start of
            // every application with Micrometer, with or without this extension (quarkusio/quarkus#52014)
            .overrideConfigKey("quarkus.micrometer.binder.netty.enabled", "false")
            .overrideConfigKey("quarkus.log.category.\"" + METER_REGISTRY_LOGGER + "\".level", "DEBUG")
            .setLogRecordPredicate(r -> r.getLevel().intValue() >= Level.WARNING.intValue() || refusedMeter(r))
            .assertLogRecords(records -> assertEquals("", describe(records)));

    @Inject
    DefaultRateLimiter limiter;

    @AfterAll
    static void stopRedis() {
        REDIS.stop();
    }

    @Test
    void poolMetersAreThoseOfThePoolsInUse() {
        // the first decision also opens the connection and loads the scripts: on a loaded machine it may outlast the
        // timeout and be answered by the failure mode; what this test is about is the meters once Redis decides
        Source source = limiter.checkBlocking("api", "a").source();
        for (int i = 0; i < 50 && source != Source.REDIS; i++) {
            source = limiter.checkBlocking("api", "a").source();
        }
        assertEquals(Source.REDIS, source);

        String metrics = RestAssured.get("/q/metrics").then().statusCode(200).extract().asString();
        String pool = "pool_name=\"<default>\"";
        assertEquals(0, value(metrics, "redis_pool_queue_size", pool), metrics);
        // the client's pool only lent a connection to load the scripts: the decisions take none from it
        assertEquals(0, value(metrics, "redis_pool_active", pool), metrics);
        assertEquals(4, value(metrics, "redis_pool_idle", pool), "idle is max-pool-size minus active");
        // the decision went on the limiter's first connection, which it keeps: its own pool shows it in use
        String own = "pool_name=\"<default>-ratelimit-0\"";
        assertEquals(1, value(metrics, "redis_pool_active", own), metrics);
        assertEquals(4, 1 + value(metrics, "redis_pool_idle", own), "the client's max-pool-size, copied");
    }

    private static boolean refusedMeter(LogRecord r) {
        return METER_REGISTRY_LOGGER.equals(r.getLoggerName()) && r.getMessage() != null
                && r.getMessage().contains("already registered");
    }

    private static String describe(List<LogRecord> records) {
        return records.stream().map(r -> r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage())
                .collect(Collectors.joining("\n"));
    }

    /** The value of the one sample of {@code name} whose labels include {@code label}. */
    private static double value(String metrics, String name, String label) {
        Pattern sample = Pattern.compile("^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE);
        Matcher m = sample.matcher(metrics);
        Double found = null;
        while (m.find()) {
            if (m.group(1).contains(label)) {
                assertTrue(found == null, "one sample of " + name + " with " + label);
                found = Double.parseDouble(m.group(2));
            }
        }
        assertTrue(found != null, () -> "no sample of " + name + " with " + label + " in\n" + metrics);
        return found;
    }
}
