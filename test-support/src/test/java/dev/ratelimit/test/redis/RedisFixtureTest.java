package dev.ratelimit.test.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.util.List;
import java.util.Map;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Proves that {@link RedisFixture} gives a real Redis: Lua scripting, script cache, crash and restart. */
class RedisFixtureTest {

    private static final Logger LOG = Logger.getLogger(RedisFixtureTest.class);
    private static final String INCR = "return redis.call('INCR', KEYS[1])";

    private static RedisFixture redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisFixture.shared();
        redis.ensureRunning();
        LOG.infof("RedisFixtureTest uses %s Redis %s at %s", redis.mode(), redis.serverVersion(), redis.endpoint());
    }

    @Test
    void pingAndBasicReplies() {
        try (RespClient client = redis.client()) {
            assertEquals("PONG", client.call("PING"));
            assertEquals("OK", client.call("SET", "fixture:text", "héllo wörld ✓"));
            assertEquals("héllo wörld ✓", client.call("GET", "fixture:text"));
            assertNull(client.call("GET", "fixture:missing"));
            assertEquals(List.of("héllo wörld ✓", "x"), client.call("EVAL", "return {ARGV[1], 'x'}", "0",
                    "héllo wörld ✓"));
            RespException error = assertThrows(RespException.class, () -> client.call("NOSUCHCOMMAND"));
            assertEquals("ERR", error.code());
            // the connection stays usable after an error reply
            assertEquals(0L, client.call("STRLEN", "fixture:missing"));
        }
    }

    @Test
    void evalRunsLuaAtomically() {
        String key = "fixture:eval:" + System.nanoTime();
        try (RespClient client = redis.client()) {
            assertEquals(1L, client.call("EVAL", INCR, "1", key));
            assertEquals(2L, client.call("EVAL", INCR, "1", key));
        }
    }

    @Test
    void scriptLoadThenEvalsha() {
        String key = "fixture:evalsha:" + System.nanoTime();
        try (RespClient client = redis.client()) {
            String sha = client.callString("SCRIPT", "LOAD", INCR);
            assertEquals(40, sha.length());
            assertEquals(1L, client.call("EVALSHA", sha, "1", key));
            assertEquals(2L, client.call("EVALSHA", sha, "1", key));
            RespException unknown = assertThrows(RespException.class,
                    () -> client.call("EVALSHA", "0000000000000000000000000000000000000000", "1", key));
            assertEquals("NOSCRIPT", unknown.code());
        }
    }

    @Test
    void noPersistenceConfigured() {
        try (RespClient client = redis.client()) {
            Object save = client.call("CONFIG", "GET", "save");
            // an external server may be configured otherwise; ours must not write snapshots
            if (redis.mode() != RedisFixture.Mode.EXTERNAL) {
                assertEquals(List.of("save", ""), save);
            }
        }
    }

    @Test
    void killRefusesConnectionsAndRestartComesBackEmpty() {
        assumeTrue(redis.canRestart(), "only the embedded server can be killed");
        String sha;
        try (RespClient client = redis.client()) {
            sha = client.callString("SCRIPT", "LOAD", INCR);
            client.call("SET", "fixture:survivor", "1");
        }
        long started = System.nanoTime();
        redis.kill();
        try {
            UncheckedIOException refused = assertThrows(UncheckedIOException.class, redis::client);
            assertInstanceOf(ConnectException.class, refused.getCause());
            assertFalse(redis.isAlive());
        } finally {
            redis.restart();
        }
        LOG.infof("Embedded Redis killed and restarted in %d ms", (System.nanoTime() - started) / 1_000_000);
        try (RespClient client = redis.client()) {
            assertEquals("PONG", client.call("PING"));
            assertNull(client.call("GET", "fixture:survivor"), "no persistence: data is gone after a crash");
            RespException noscript = assertThrows(RespException.class,
                    () -> client.call("EVALSHA", sha, "1", "fixture:after-restart"));
            assertEquals("NOSCRIPT", noscript.code());
            assertTrue(noscript.getMessage().startsWith("NOSCRIPT"), noscript.getMessage());
        }
    }

    @Test
    void endpointParsesPasswordsAndTestResourceGivesQuarkusConfig() {
        RedisEndpoint plain = RedisEndpoint.parse("redis://127.0.0.1:6380");
        assertEquals("127.0.0.1", plain.host());
        assertEquals(6380, plain.port());
        assertNull(plain.password());
        RedisEndpoint withPassword = RedisEndpoint.parse("redis://:s3cr%40t@redis.example:7000/2");
        assertNull(withPassword.user());
        assertEquals("s3cr@t", withPassword.password());
        assertEquals(7000, withPassword.port());
        assertEquals(2, withPassword.database());
        RedisEndpoint withUser = RedisEndpoint.parse("redis://app:pw@localhost");
        assertEquals("app", withUser.user());
        assertEquals("pw", withUser.password());
        assertEquals(6379, withUser.port());

        Map<String, String> config = new RedisTestResource().start();
        assertEquals(redis.uri(), config.get("quarkus.redis.hosts"));
        assertEquals("false", config.get("quarkus.redis.devservices.enabled"));
    }

    @Test
    void clientAuthenticatesWithThePasswordOfTheUri() {
        RedisServerProcess secured = new RedisServerProcess("--requirepass", "t0p-secret").start();
        try {
            try (RespClient anonymous = secured.client()) {
                assertEquals("NOAUTH", assertThrows(RespException.class, () -> anonymous.call("PING")).code());
            }
            try (RespClient client = RespClient.connect("redis://:t0p-secret@127.0.0.1:" + secured.port())) {
                assertEquals("PONG", client.call("PING"));
            }
            try (RespClient client = RespClient.connect("redis://default:t0p-secret@127.0.0.1:" + secured.port())) {
                assertEquals("PONG", client.call("PING"));
            }
        } finally {
            secured.stop();
        }
        assertFalse(secured.isAlive());
    }
}
