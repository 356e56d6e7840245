package dev.ratelimit.benchmark;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;
import dev.ratelimit.runtime.backend.redis.transport.BatchFormat;
import dev.ratelimit.runtime.backend.redis.transport.LuaScriptExecutor;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.policy.Policy;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import io.github.bucket4j.distributed.proxy.RemoteAsyncBucketBuilder;
import io.github.bucket4j.distributed.proxy.optimization.DelayParameters;
import io.github.bucket4j.distributed.proxy.optimization.Optimization;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * The systems under test, each called through its own asynchronous API. Every one admits
 * {@link #RATE} per second per key, far above what this machine can send, so every decision is an
 * admission that writes state (the costlier path) and no contender wins by denying.
 */
final class Contenders {

    /**
     * The algorithms the suites measure: the rate algorithms. {@code concurrency} takes a slot per call and frees it in a
     * second script call, which a closed loop of decisions does not model; it is left out.
     */
    static final List<Algorithm> RATE_ALGORITHMS = Arrays.stream(Algorithm.values())
            .filter(a -> a != Algorithm.CONCURRENCY).toList();

    /** Units per second every contender admits per key. */
    static final long RATE = 1_000_000;

    private static final String[] NO_ARGS = new String[0];

    private Contenders() {
    }

    /** The name a benchmark identity gets: one hot one, or one of many. */
    static String[] identities(int count) {
        String[] ids = new String[count];
        if (count == 1) {
            ids[0] = "hot";
        } else {
            for (int i = 0; i < count; i++) {
                ids[i] = "user-" + i;
            }
        }
        return ids;
    }

    /** Our limiter, one policy, through the public reactive API. */
    static Operation limiter(RateLimiter limiter, String policy, String[] identities) {
        return (key, done) -> limiter.check(policy, identities[key]).subscribe().with(d -> {
            if (d.source() == RateLimitDecision.Source.REDIS) {
                done.decided(d.allowed());
            } else {
                done.failed(null); // answered by the failure mode: not a Redis decision
            }
        }, done::failed);
    }

    /**
     * Our limiter, one policy with quota leasing ({@code lease}), through the public reactive API: a decision from
     * the key's slice ({@code Source.LEASE}, made in this process) counts as one Redis made, since Redis granted the
     * slice it came from. {@code inRedis} counts the decisions Redis made itself (a call that took a slice, or decided
     * alone): counted on that path only, so a decision from a slice costs nothing more than in {@link #limiter}.
     */
    static Operation leasedLimiter(RateLimiter limiter, String policy, String[] identities,
            java.util.concurrent.atomic.LongAdder inRedis) {
        return (key, done) -> limiter.check(policy, identities[key]).subscribe().with(d -> {
            RateLimitDecision.Source s = d.source();
            if (s == RateLimitDecision.Source.LEASE) {
                done.decided(d.allowed());
            } else if (s == RateLimitDecision.Source.REDIS) {
                inRedis.increment();
                done.decided(d.allowed());
            } else {
                done.failed(null); // answered by the failure mode or the deny cache: not a Redis decision
            }
        }, done::failed);
    }

    /**
     * A diagnostic row: the backend {@code DefaultRateLimiter} calls (script, executor, connection),
     * without the limiter around it (timeout, circuit breaker, deny cache, decision objects).
     */
    static Operation backendOnly(DefaultRateLimiter limiter, String policy, String[] identities) {
        return backend(limiter.backend(), limiter.policies().get(policy), identities);
    }

    /** A backend called directly, one policy. */
    static Operation backend(RateLimitBackend backend, Policy policy, String[] identities) {
        Policy[] ps = { policy };
        long[] costs = { 1 };
        String[][] keys = new String[identities.length][];
        for (int i = 0; i < identities.length; i++) {
            keys[i] = new String[] { RedisKeys.key("rl", policy.name(), identities[i]) };
        }
        return (key, done) -> backend.decide(ps, keys[key], costs, RateLimitBackend.BACKEND_CLOCK, false).subscribe()
                .with(r -> done.decided(r.allAdmitted()), done::failed);
    }

    /**
     * An experiment: the backend with the per-call timeout {@code DefaultRateLimiter} applies
     * ({@code ifNoItem().after(250ms).fail()}), on Mutiny's default scheduler (in Quarkus, Vert.x
     * timers) or on the given one.
     */
    static Operation backendWithTimeout(DefaultRateLimiter limiter, String policy, String[] identities,
            java.util.concurrent.ScheduledExecutorService scheduler) {
        Policy[] ps = { limiter.policies().get(policy) };
        long[] costs = { 1 };
        String[][] keys = new String[identities.length][];
        for (int i = 0; i < identities.length; i++) {
            keys[i] = new String[] { RedisKeys.key("rl", policy, identities[i]) };
        }
        RateLimitBackend backend = limiter.backend();
        Duration timeout = Duration.ofMillis(250);
        return (key, done) -> {
            io.smallrye.mutiny.Uni<dev.ratelimit.runtime.backend.BackendReply> u = backend.decide(ps, keys[key], costs, RateLimitBackend.BACKEND_CLOCK, false);
            u = scheduler == null ? u.ifNoItem().after(timeout).fail() : u.ifNoItem().after(timeout).on(scheduler).fail();
            u.subscribe().with(r -> done.decided(r.allAdmitted()), done::failed);
        };
    }

    /**
     * The design before this benchmark, for comparison in the same run: the backend on an executor
     * that sends each call with the client's pooled {@code send} (one pooled connection per call in
     * flight), as {@code LuaScriptExecutor} did.
     */
    static Operation pooledBackend(io.vertx.mutiny.redis.client.Redis pooled, LuaScriptRegistry scripts, Policy policy,
            String[] identities) {
        LuaScriptExecutor perCall = new LuaScriptExecutor(null, new io.vertx.redis.client.RedisOptions()) { // never sends: execute is replaced
            @Override
            public <T> io.smallrye.mutiny.Uni<T> execute(LuaScript script, LuaScript batch,
                    BatchFormat format, Object tag, String[] keys, String[] args,
                    java.util.function.Function<io.vertx.redis.client.Response, T> convert) {
                io.vertx.mutiny.redis.client.Request r = io.vertx.mutiny.redis.client.Request
                        .cmd(io.vertx.mutiny.redis.client.Command.EVALSHA).arg(script.sha()).arg(keys.length);
                for (String k : keys) {
                    r.arg(k);
                }
                for (String a : args) {
                    r.arg(a);
                }
                return pooled.send(r).map(resp -> convert.apply(resp.getDelegate()));
            }
        };
        RateLimitBackend backend = new dev.ratelimit.runtime.backend.redis.RedisBackend(perCall, scripts, false);
        Policy[] ps = { policy };
        long[] costs = { 1 };
        String[][] keys = new String[identities.length][];
        for (int i = 0; i < identities.length; i++) {
            keys[i] = new String[] { RedisKeys.key("rl", policy.name(), identities[i]) };
        }
        return (key, done) -> backend.decide(ps, keys[key], costs, RateLimitBackend.BACKEND_CLOCK, false).subscribe()
                .with(r -> done.decided(r.allAdmitted()), done::failed);
    }

    /** The ceiling: the same executor and Redis client running a script that only returns 1. */
    static Operation ceiling(LuaScriptExecutor executor, LuaScript returnOne, String prefix, String[] identities) {
        String[][] keys = new String[identities.length][];
        for (int i = 0; i < identities.length; i++) {
            keys[i] = new String[] { prefix + ":{" + identities[i] + "}:ceiling" };
        }
        return (key, done) -> executor.execute(returnOne, keys[key], NO_ARGS).subscribe().with(r -> done.ok(),
                done::failed);
    }

    /**
     * Redisson's {@code RRateLimiter}, one per key, through {@code tryAcquireAsync}. Sized for this benchmark
     * rather than left at Redisson's defaults, which are made for larger machines (see {@link #redissonConfig}).
     * Its rate lives in Redis ({@code trySetRate}): {@link Peer#prepare} sets it again after a {@code FLUSHALL}.
     */
    static Peer redisson(String redisUri, String[] identities) {
        RedissonClient client = Redisson.create(redissonConfig(redisUri));
        RRateLimiter[] limiters = new RRateLimiter[identities.length];
        for (int i = 0; i < identities.length; i++) {
            limiters[i] = client.getRateLimiter("redisson:{" + identities[i] + "}");
        }
        Runnable setRates = () -> {
            java.util.concurrent.CompletableFuture<?>[] set = new java.util.concurrent.CompletableFuture<?>[limiters.length];
            for (int i = 0; i < limiters.length; i++) {
                set[i] = limiters[i].trySetRateAsync(RateType.OVERALL, RATE, Duration.ofSeconds(1), Duration.ofMinutes(10))
                        .toCompletableFuture();
            }
            java.util.concurrent.CompletableFuture.allOf(set).join();
        };
        setRates.run();
        Operation op = (key, done) -> limiters[key].tryAcquireAsync().whenComplete((admitted, failure) -> {
            if (failure == null) {
                done.decided(admitted);
            } else {
                done.failed(failure);
            }
        });
        return new Peer(op, setRates, client::shutdown);
    }

    /** Netty threads Redisson gets: one per core (see {@link #redissonConfig}). */
    static final int REDISSON_NETTY_THREADS = Runtime.getRuntime().availableProcessors();
    /** Redisson's connections: one per caller at most, all opened at start. */
    static final int REDISSON_CONNECTIONS = 64;

    /**
     * Redisson sized for the machine and the load. Redisson sends a command on a pooled connection and
     * holds it until the reply: a caller without a connection waits for one, so the pool has one per
     * caller (64, Redisson's default size, the most callers this benchmark runs), every one opened at start
     * (minimum idle 64 instead of 24) so none is opened while measured. Its Netty threads are one per core
     * instead of Redisson's 32, made for machines with many cores: on 2 cores shared with Redis and the
     * callers, more threads only take turns. Everything else is Redisson's default (NIO transport, its
     * codec; no retry is needed: every call succeeds).
     * <p>
     * Chosen by measuring (25 November, this 2-core machine, 64 callers, median of 3 runs of 3 s, hot key /
     * 10,000 keys, decisions/s): Redisson's defaults (32 threads, pool 64, 24 idle) 26,904 / 24,684; 2 threads,
     * 64 connections 44,466 / 32,866; 4 threads 42,728 / 31,851; 8 threads 32,273 / 25,737; 4 threads and 32
     * connections 29,422 / 32,367.
     */
    static Config redissonConfig(String redisUri) {
        Config config = new Config();
        config.setNettyThreads(REDISSON_NETTY_THREADS);
        config.useSingleServer().setAddress(redisUri)
                .setConnectionPoolSize(REDISSON_CONNECTIONS)
                .setConnectionMinimumIdleSize(REDISSON_CONNECTIONS);
        return config;
    }

    /**
     * How far Bucket4j's inexact modes may run ahead of Redis, chosen to match our {@code lease=auto}, which leases a
     * key at most a tenth of its capacity for at most 100 ms: at most a tenth of the capacity ({@code RATE / 10} =
     * 100,000 tokens) consumed in this process before it synchronizes with Redis, and at most 100 ms between two
     * synchronizations. Bucket4j's {@code DelayParameters(maxUnsynchronizedTokens, maxTimeoutBetweenRequests)}.
     */
    static final DelayParameters BUCKET4J_DELAY = new DelayParameters(RATE / 10, Duration.ofMillis(100));

    /** Which of Bucket4j's optimizations a proxy is built with (see {@link #bucket4j}). */
    enum Bucket4jMode {
        /** None: every {@code tryConsume} is a compare-and-swap in Redis. */
        EXACT("bucket4j", false),
        /** {@code Optimizations.batching()}: calls on a bucket while one is in flight go as one compare-and-swap. */
        BATCHING("bucket4j-batching", false),
        /**
         * {@code Optimizations.delaying(BUCKET4J_DELAY)}: calls are decided in this process on a local copy of the
         * bucket and synchronized with Redis once {@link #BUCKET4J_DELAY}'s tokens or time are spent (batching on top);
         * inexact: several processes may together overconsume by up to that much each.
         */
        DELAYING("bucket4j-delaying", true),
        /**
         * {@code Optimizations.predicting(BUCKET4J_DELAY)}: as {@link #DELAYING}, and between synchronizations it
         * subtracts the consumption it predicts for the other processes from the samples of earlier synchronizations
         * (Bucket4j's default prediction parameters for these delay parameters).
         */
        PREDICTING("bucket4j-predicting", true);

        final String keyPrefix;
        /**
         * Whether a decision that completes after {@code tryConsume} returned reaches its caller on the common pool
         * rather than on the thread that completed it. The inexact modes need it: they decide most calls at once, and
         * complete the calls that waited for a batch from inside {@code AsyncBatchHelper.scheduleNextBatchAsync}; a
         * closed-loop caller making its next call right there nests the next batch in that one, and so on without end.
         * Measured (64 callers, hot key): the stack overflowed within a second, inside a {@code CompletableFuture}
         * callback that swallowed the error, the bucket's batch lock was never freed, and no call completed again
         * (with {@code -Xss32m} it went on). The common pool is where the closed loop continues a caller answered at
         * once, ours leased included, so both pay the same hand-over.
         */
        final boolean handsOff;

        Bucket4jMode(String keyPrefix, boolean handsOff) {
            this.keyPrefix = keyPrefix;
            this.handsOff = handsOff;
        }

        /** A new optimization for one proxy, or null for none. */
        Optimization optimization() {
            return switch (this) {
                case EXACT -> null;
                case BATCHING -> Optimizations.batching();
                case DELAYING -> Optimizations.delaying(BUCKET4J_DELAY);
                case PREDICTING -> Optimizations.predicting(BUCKET4J_DELAY);
            };
        }
    }

    /**
     * Bucket4j's Lettuce integration (compare-and-swap), asynchronous proxies, one per key, on one Lettuce
     * connection (Lettuce multiplexes every caller on it). With {@link Bucket4jMode#BATCHING}, each proxy has
     * {@code Optimizations.batching()}, Bucket4j's documented answer to contention: requests to one bucket
     * made while an earlier one is in flight are combined into one compare-and-swap. With
     * {@link Bucket4jMode#DELAYING} and {@link Bucket4jMode#PREDICTING}, its inexact modes, the peers of our quota
     * leasing. Each proxy gets its own optimization and is kept for the run, as Bucket4j asks of an optimized proxy
     * (its state is the point). Buckets are created on first use, so a {@code FLUSHALL} needs nothing done.
     */
    static Peer bucket4j(String redisUri, String[] identities, Bucket4jMode mode) {
        RedisClient client = RedisClient.create(redisUri);
        StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
        AsyncProxyManager<byte[]> proxies = Bucket4jLettuce.casBasedBuilder(connection)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                .build()
                .asAsync();
        BucketConfiguration configuration = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(RATE).refillGreedy(RATE, Duration.ofSeconds(1)))
                .build();
        AsyncBucketProxy[] buckets = new AsyncBucketProxy[identities.length];
        String prefix = mode.keyPrefix + ":{";
        for (int i = 0; i < identities.length; i++) {
            RemoteAsyncBucketBuilder<byte[]> builder = proxies.builder();
            Optimization optimization = mode.optimization();
            if (optimization != null) {
                builder = builder.withOptimization(optimization);
            }
            buckets[i] = builder.build((prefix + identities[i] + "}").getBytes(StandardCharsets.UTF_8),
                    () -> java.util.concurrent.CompletableFuture.completedFuture(configuration));
        }
        Operation op = (key, done) -> {
            java.util.concurrent.CompletableFuture<Boolean> decision = buckets[key].tryConsume(1);
            if (mode.handsOff && !decision.isDone()) {
                decision.whenComplete((admitted, failure) -> java.util.concurrent.ForkJoinPool.commonPool()
                        .execute(() -> report(done, admitted, failure)));
            } else {
                decision.whenComplete((admitted, failure) -> report(done, admitted, failure));
            }
        };
        return new Peer(op, () -> {
        }, () -> {
            connection.close();
            client.shutdown();
        });
    }

    private static void report(Operation.Done done, Boolean admitted, Throwable failure) {
        if (failure == null) {
            done.decided(admitted);
        } else {
            done.failed(failure);
        }
    }

    /** A peer, what it needs done after a {@code FLUSHALL}, and how to release its client. */
    record Peer(Operation operation, Runnable prepare, Runnable close) {
    }
}
