package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Faults between a concurrency charge and its reply, on a real redis-server of this class alone, reached through a
 * small TCP proxy that can lose a reply: whatever happens after Redis charged a slot, the caller (told of a failure,
 * never of a slot) can free nothing, so the limiter must. Each test ends with no lease in flight on the key.
 */
class SlotsAfterRedisFaultsTest {

    static final RedisServerProcess REDIS = OwnRedis.of(SlotsAfterRedisFaultsTest.class);
    static final ReplyLosingProxy PROXY = ReplyLosingProxy.to(REDIS.port());

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OwnRedis.class, ReplyLosingProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", "redis://127.0.0.1:" + PROXY.port())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.redis.timeout", "200ms")
            .overrideConfigKey("quarkus.ratelimit.circuit-breaker.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.on-failure", "fail-closed")
            .overrideConfigKey("quarkus.ratelimit.policies.in-flight.algorithm", "concurrency")
            .overrideConfigKey("quarkus.ratelimit.policies.in-flight.limit", "1")
            .overrideConfigKey("quarkus.ratelimit.policies.in-flight.window", "1h");

    @Inject
    DefaultRateLimiter limiter;

    @AfterAll
    static void stop() {
        PROXY.close();
        REDIS.stop();
    }

    /**
     * The connection breaks after the script ran, before its reply came back (a reset, a proxy or a failover cutting
     * it): the call fails, the failure mode denies, and the slot Redis took is freed. Before, only timeouts and
     * cancellations sent a release, and the slot stayed held for the policy's hour.
     */
    @Test
    void aChargeWhoseReplyIsLostIsFreed() throws Exception {
        String id = "lost-reply-" + System.nanoTime();
        assertTrue(limiter.checkBlocking("in-flight", id + "-warm-up").allowed(), "Redis decides");
        PROXY.loseReplyTo(id);
        RateLimitDecision d = limiter.checkBlocking("in-flight", id);
        assertFalse(PROXY.armed(), "a reply was lost");
        assertEquals(Source.FAILED_CLOSED, d.source(), () -> "the call failed: " + d);
        awaitNoLease(id);
        RateLimitDecision next = limiter.checkBlocking("in-flight", id);
        assertTrue(next.allowed(), () -> "the one slot is free: " + next);
        next.release();
    }

    /**
     * Redis stalls past the timeout while it has no script loaded (a restart, {@code SCRIPT FLUSH}): the call times out
     * and its release is sent at once; when Redis wakes up the charge (refused for the missing script, then resent) and
     * the release run in whatever order the connections deliver them. No slot may be left either way. (The order
     * where the release runs first is pinned deterministically by
     * {@code ConcurrencyScenariosTest.aReleaseThatOvertakesItsChargeLeavesNoSlot}.)
     */
    @Test
    void aChargeResentAfterItsReleaseTakesNothing() throws Exception {
        String id = "resent-" + System.nanoTime();
        assertTrue(limiter.checkBlocking("in-flight", id + "-warm-up").allowed(), "Redis decides");
        try (RespClient admin = REDIS.client()) {
            admin.call("FUNCTION", "FLUSH");
            admin.call("SCRIPT", "FLUSH");
            admin.call("CLIENT", "PAUSE", "600");
        }
        RateLimitDecision d = limiter.checkBlocking("in-flight", id);
        assertEquals(Source.FAILED_CLOSED, d.source(), () -> "the call timed out: " + d);
        Thread.sleep(1_000); // the pause ends; the charge and its release run, in whatever order
        awaitNoLease(id);
        RateLimitDecision next = limiter.checkBlocking("in-flight", id);
        assertTrue(next.allowed(), () -> "the one slot is free: " + next);
        next.release();
    }

    private void awaitNoLease(String id) throws InterruptedException {
        String key = RedisKeys.key("rl", limiter.policies().get("in-flight"), id);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        long held;
        try (RespClient client = REDIS.client()) {
            while ((held = client.callLong("ZCOUNT", key, "(0", "+inf")) != 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        }
        assertEquals(0, held, "a slot Redis charged for a failed call is still held: " + key);
    }

    /**
     * Forwards TCP both ways; when armed with a marker, the next reply on the connection whose request carried that
     * marker is not forwarded: both connections are closed instead, after Redis ran the command. Other connections
     * (health checks, script loading, the library sweep) are left alone, so it is the call under test that loses its
     * reply, whatever else the application sends at that moment. A QuarkusUnitTest class is initialised twice (by JUnit and by the
     * application's class loader): the first initialisation starts the proxy, and its port and whether it is armed are
     * kept in system properties, which both see.
     */
    static final class ReplyLosingProxy implements AutoCloseable {
        private static final String PORT = "ratelimit.test.reply-losing-proxy.port";
        private static final String ARMED = "ratelimit.test.reply-losing-proxy.armed";

        private final ServerSocket server;
        private final int port;

        private ReplyLosingProxy(ServerSocket server, int port) {
            this.server = server;
            this.port = port;
        }

        static ReplyLosingProxy to(int upstream) {
            String port = System.getProperty(PORT);
            if (port != null) {
                return new ReplyLosingProxy(null, Integer.parseInt(port));
            }
            try {
                ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                System.setProperty(PORT, Integer.toString(server.getLocalPort()));
                Thread accept = new Thread(() -> {
                    while (!server.isClosed()) {
                        try {
                            Socket client = server.accept();
                            Socket redis = new Socket(InetAddress.getLoopbackAddress(), upstream);
                            AtomicBoolean loseNext = new AtomicBoolean();
                            pump(client, redis, false, loseNext);
                            pump(redis, client, true, loseNext);
                        } catch (IOException e) {
                            return;
                        }
                    }
                }, "reply-losing-proxy");
                accept.setDaemon(true);
                accept.start();
                return new ReplyLosingProxy(server, server.getLocalPort());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        int port() {
            return port;
        }

        void loseReplyTo(String marker) {
            System.setProperty(ARMED, marker);
        }

        boolean armed() {
            return System.getProperty(ARMED) != null;
        }

        /** Whether a request carries the armed marker: its connection's next reply is then lost (once). */
        private static synchronized boolean carriesMarker(byte[] buf, int n) {
            String marker = System.getProperty(ARMED);
            if (marker != null && new String(buf, 0, n, StandardCharsets.ISO_8859_1).contains(marker)) {
                System.clearProperty(ARMED);
                return true;
            }
            return false;
        }

        private static void pump(Socket from, Socket to, boolean replies, AtomicBoolean loseNext) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[8192];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        if (!replies && carriesMarker(buf, n)) {
                            loseNext.set(true);
                        }
                        if (replies && loseNext.get()) {
                            break; // Redis answered; the caller never hears it
                        }
                        out.write(buf, 0, n);
                        out.flush();
                    }
                } catch (IOException e) {
                    // one side closed
                } finally {
                    closeQuietly(from);
                    closeQuietly(to);
                }
            }, "reply-losing-proxy-pump");
            t.setDaemon(true);
            t.start();
        }

        private static void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException e) {
                // closed already
            }
        }

        @Override
        public void close() {
            if (server != null) {
                try {
                    server.close();
                } catch (IOException e) {
                    // closed already
                }
            }
        }
    }
}
