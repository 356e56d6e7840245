package dev.ratelimit.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Properties;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;
import dev.ratelimit.runtime.backend.redis.transport.ClientOptions;
import dev.ratelimit.runtime.backend.redis.transport.LuaScriptExecutor;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.redis.runtime.client.config.RedisConfig;
import io.quarkus.runtime.QuarkusApplication;
import io.vertx.mutiny.redis.client.Redis;

/**
 * Runs the suites in one process against one Redis, writes the report, and exits.
 */
public class BenchmarkApplication implements QuarkusApplication {

    private static final Logger LOG = Logger.getLogger(BenchmarkApplication.class);

    @Inject
    DefaultRateLimiter limiter;

    @Inject
    Redis redis;

    @Inject
    LuaScriptRegistry scripts;

    @Inject
    io.vertx.mutiny.core.Vertx vertx;

    @Inject
    DecisionTally tally;

    @Inject
    ClientOptions clientOptions;

    @Override
    public int run(String... args) throws Exception {
        Settings settings = Settings.fromSystemProperties();
        String redisUri = ConfigProvider.getConfig().getValue("quarkus.redis.hosts", String.class);
        int httpPort = ConfigProvider.getConfig().getValue("quarkus.http.port", Integer.class);
        LOG.infof("Benchmark: %s against %s", settings, redisUri);
        try (RespClient admin = RespClient.connect(redisUri)) {
            Environment env = Environment.describe(admin, versions().getProperty("quarkus", "?"), redisUri,
                    !settings.redisUrl().isBlank());
            // checked before any suite runs: a wrong layout should not cost the other suites' time
            HttpBench.Layout layout = settings.runs("http") ? HttpBench.Layout.of(settings.httpLayout(), env.redisCpus())
                    : null;
            admin.call("FLUSHALL");

            List<RedisCost.Row> cost = List.of();
            if (settings.runs("redis-cost")) {
                cost = new RedisCost(limiter, new LuaScriptExecutor(vertx.getDelegate(), clientOptions.of(RedisConfig.DEFAULT_CLIENT_NAME)), scripts, redis, admin, settings.keys()).measure();
            }
            List<LimiterSuite.Row> cells = List.of();
            if (settings.runs("limiter")) {
                // the floors on an executor of the limiter's shape (its connections one per event loop unless
                // bounded), on the same client's options
                LuaScriptExecutor floors = LimiterSuite.limiterShaped(vertx.getDelegate(),
                        clientOptions.of(RedisConfig.DEFAULT_CLIENT_NAME));
                cells = new LimiterSuite(settings, limiter, new LuaScriptExecutor(vertx.getDelegate(), clientOptions.of(RedisConfig.DEFAULT_CLIENT_NAME)), floors, redisUri,
                        clientOptions.of(RedisConfig.DEFAULT_CLIENT_NAME), vertx, scripts, admin, tally).measure();
                admin.call("FLUSHALL");
            }
            List<HttpBench.Row> http = List.of();
            String httpSkipped = null;
            if (settings.runs("http")) {
                httpSkipped = HttpBench.missingWrk();
                if (httpSkipped == null) {
                    http = new HttpBench(httpPort, settings.httpConnections(), settings.warmupMillis(),
                            settings.durationMillis(), settings.keys(), () -> LimiterSuite.redisCpuSeconds(admin),
                            () -> LimiterSuite.redisScriptCalls(admin), layout,
                            tally, settings.repetitions()).profiled(System.getProperty("bench.http.profile", ""), settings.output())
                            .measure(java.nio.file.Files.createTempDirectory("bench-wrk"));
                } else {
                    LOG.warnf("HTTP suite skipped: %s", httpSkipped);
                }
            }
            String md = new Report(settings, env, cost, cells, http, httpSkipped).write();
            System.out.println();
            System.out.println(md);
            LOG.infof("Results written to %s", settings.output());
        }
        return 0;
    }

    private static Properties versions() {
        Properties p = new Properties();
        try (InputStream in = BenchmarkApplication.class.getResourceAsStream("/bench-versions.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // only used in the report's header
        }
        return p;
    }
}
