package dev.ratelimit.test.redis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import org.jboss.logging.Logger;

/**
 * The standalone Redis that tests talk to. {@link #shared()} gives one server per JVM, chosen in this order:
 * <ol>
 * <li>{@link Mode#EXTERNAL}: the server named by system property {@value #URL_PROPERTY} or env {@value #URL_ENV}
 * ({@code redis://host:port}, {@code redis://:password@host:port});</li>
 * <li>{@link Mode#TESTCONTAINERS}: a {@code redis:7.0} container, only when a Docker engine answers (skip with
 * {@code -D}{@value #DOCKER_PROPERTY}{@code =false});</li>
 * <li>{@link Mode#EMBEDDED}: a {@link RedisServerProcess} with the redis-server binary of the embedded-redis jar.</li>
 * </ol>
 * Only the embedded server can be killed and restarted (resilience tests check {@link #canRestart()} first).
 * <p>
 * The shared server is recorded in a JVM-wide system property, so every class loader (Quarkus starts one per
 * application) sees the same server; it lives until JVM exit.
 */
public final class RedisFixture implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(RedisFixture.class);

    public enum Mode {
        EXTERNAL,
        TESTCONTAINERS,
        EMBEDDED
    }

    public static final String URL_PROPERTY = "ratelimit.test.redis-url";
    public static final String URL_ENV = "RATELIMIT_TEST_REDIS_URL";
    /** Set to {@code false} to use the embedded server even when Docker is available. */
    public static final String DOCKER_PROPERTY = "ratelimit.test.redis-docker";

    private static final String SHARED_KEY = "ratelimit.test.internal.redis-shared";
    // interned literal: the same lock in every class loader (see RedisServerProcess.JVM_LOCK)
    private static final Object SHARED_LOCK = "dev.ratelimit.test.redis.shared-fixture-lock";

    private final Mode mode;
    private final RedisEndpoint endpoint;
    private final RedisServerProcess process; // EMBEDDED only
    private final boolean owned; // close() stops the server

    private RedisFixture(Mode mode, RedisEndpoint endpoint, RedisServerProcess process, boolean owned) {
        this.mode = mode;
        this.endpoint = endpoint;
        this.process = process;
        this.owned = owned;
    }

    /** The Redis server shared by all tests of this JVM, started on first use. */
    public static RedisFixture shared() {
        synchronized (SHARED_LOCK) {
            String description = System.getProperty(SHARED_KEY);
            if (description != null) {
                return fromDescription(description);
            }
            long started = System.nanoTime();
            RedisFixture fixture = create();
            System.setProperty(SHARED_KEY, fixture.mode + "\n" + fixture.uri());
            LOG.infof("Redis for tests: %s, redis_version %s, at %s (ready in %d ms)", fixture.mode,
                    fixture.serverVersion(), fixture.endpoint, (System.nanoTime() - started) / 1_000_000);
            return fixture;
        }
    }

    /** A private embedded server, not shared; {@link #close()} stops it. */
    public static RedisFixture startEmbedded() {
        RedisServerProcess process = new RedisServerProcess().start();
        return new RedisFixture(Mode.EMBEDDED, RedisEndpoint.parse(process.uri()), process, true);
    }

    public Mode mode() {
        return mode;
    }

    /** {@code redis://host:port} (with the credentials, for an external server that needs them). */
    public String uri() {
        return endpoint.uri();
    }

    public String host() {
        return endpoint.host();
    }

    public int port() {
        return endpoint.port();
    }

    public RedisEndpoint endpoint() {
        return endpoint;
    }

    /** A new connection (AUTH done when the URI has a password); close it after use. */
    public RespClient client() {
        return endpoint.client();
    }

    /** {@code redis_version} from {@code INFO server}. */
    public String serverVersion() {
        try (RespClient client = client()) {
            return infoField(client.callString("INFO", "server"), "redis_version");
        }
    }

    /** Deletes every key (cached scripts stay; SCRIPT FLUSH removes those). */
    public void flushAll() {
        try (RespClient client = client()) {
            client.call("FLUSHALL");
        }
    }

    /** True only for {@link Mode#EMBEDDED}: the server can be killed and restarted. */
    public boolean canRestart() {
        return process != null;
    }

    /** Kills the embedded server (SIGKILL) to simulate a crash; connections are refused until {@link #restart()}. */
    public void kill() {
        requireRestartable("kill").kill();
    }

    /** Starts the embedded server again on the same port (empty: no persistence, no cached scripts). */
    public void restart() {
        requireRestartable("restart").restart();
    }

    /** Starts the embedded server again if a test killed it and did not restart it; no-op otherwise. */
    public void ensureRunning() {
        if (process != null && !process.isAlive()) {
            LOG.debugf("Embedded Redis on port %d was down; starting it again", process.port());
            process.start();
        }
    }

    public boolean isAlive() {
        if (process != null) {
            return process.isAlive();
        }
        try (RespClient client = client()) {
            return "PONG".equals(client.call("PING"));
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Stops a server from {@link #startEmbedded()}; does nothing for the shared one (it lives until JVM exit). */
    @Override
    public void close() {
        if (owned && process != null) {
            process.stop();
        }
    }

    @Override
    public String toString() {
        return "RedisFixture[" + mode + " " + endpoint + "]";
    }

    // ------------------------------------------------------------------------------------------------------------

    private RedisServerProcess requireRestartable(String action) {
        if (process == null) {
            throw new UnsupportedOperationException("Cannot " + action + " a " + mode + " Redis; check canRestart()");
        }
        return process;
    }

    private static RedisFixture create() {
        String url = System.getProperty(URL_PROPERTY, System.getenv(URL_ENV));
        if (url != null && !url.isBlank()) {
            RedisFixture external = new RedisFixture(Mode.EXTERNAL, RedisEndpoint.parse(url), null, false);
            try (RespClient client = external.client()) {
                client.call("PING");
            } catch (RuntimeException e) {
                throw new IllegalStateException("External Redis " + external.endpoint + " (from " + URL_PROPERTY
                        + " / " + URL_ENV + ") does not answer PING: " + e.getMessage(), e);
            }
            return external;
        }
        if (!"false".equalsIgnoreCase(System.getProperty(DOCKER_PROPERTY)) && dockerLikelyPresent()) {
            RedisFixture docker = tryDocker();
            if (docker != null) {
                return docker;
            }
        }
        RedisServerProcess process = new RedisServerProcess().start();
        return new RedisFixture(Mode.EMBEDDED, RedisEndpoint.parse(process.uri()), process, false);
    }

    private static RedisFixture tryDocker() {
        boolean answers;
        try {
            answers = DockerRedis.dockerAnswers();
        } catch (LinkageError e) { // Testcontainers not on the classpath
            LOG.debugf("Testcontainers unavailable: %s", e.toString());
            return null;
        }
        if (!answers) {
            LOG.debug("A Docker socket or DOCKER_HOST exists but Docker does not answer; using embedded Redis");
            return null;
        }
        try {
            DockerRedis container = DockerRedis.start();
            return new RedisFixture(Mode.TESTCONTAINERS,
                    new RedisEndpoint(container.host(), container.port(), null, null, 0), null, false);
        } catch (RuntimeException e) {
            // Docker answers but the container cannot start (e.g. no access to the image registry): not normal, but
            // the embedded server still lets the tests run.
            LOG.warnf("Cannot start a %s container (%s); using embedded Redis instead", DockerRedis.IMAGE,
                    e.toString());
            return null;
        }
    }

    /**
     * Cheap look for a Docker engine without touching Testcontainers: {@code DOCKER_HOST}, a Testcontainers config
     * file, or one of the usual sockets.
     */
    static boolean dockerLikelyPresent() {
        String dockerHost = System.getenv("DOCKER_HOST");
        if (dockerHost != null && !dockerHost.isBlank()) {
            return true;
        }
        String home = System.getProperty("user.home", "");
        String runtimeDir = System.getenv("XDG_RUNTIME_DIR");
        Path[] candidates = {
                Paths.get("/var/run/docker.sock"),
                Paths.get(home, ".docker", "run", "docker.sock"), // Docker Desktop
                Paths.get(home, ".testcontainers.properties"), // may name a docker.host
                runtimeDir == null ? null : Paths.get(runtimeDir, "docker.sock"), // rootless Docker
                runtimeDir == null ? null : Paths.get(runtimeDir, "podman", "podman.sock"),
                Paths.get(home, ".colima", "default", "docker.sock"),
                Paths.get(home, ".rd", "docker.sock"), // Rancher Desktop
        };
        for (Path candidate : candidates) {
            if (candidate != null && Files.exists(candidate)) {
                return true;
            }
        }
        return false;
    }

    private static RedisFixture fromDescription(String description) {
        String[] parts = description.split("\n", 2);
        Mode mode = Mode.valueOf(parts[0]);
        RedisEndpoint endpoint = RedisEndpoint.parse(parts[1]);
        RedisServerProcess process = mode == Mode.EMBEDDED ? RedisServerProcess.attach(endpoint.port()) : null;
        return new RedisFixture(mode, endpoint, process, false);
    }

    /** A {@code field:value} line of an INFO reply, or null. */
    static String infoField(String info, String field) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return null;
    }
}
