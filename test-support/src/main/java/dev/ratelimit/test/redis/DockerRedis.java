package dev.ratelimit.test.redis;

import org.jboss.logging.Logger;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * The only class that touches Testcontainers (2.x: {@code GenericContainer} and {@code DockerClientFactory} are in
 * the core {@code org.testcontainers:testcontainers} artifact). {@link RedisFixture} loads it only after its own cheap
 * check found a sign of Docker, so runs without Docker never touch Testcontainers (which would log ERRORs while
 * searching for a Docker environment) and Testcontainers may even be missing from the classpath.
 */
final class DockerRedis {

    private static final Logger LOG = Logger.getLogger(DockerRedis.class);

    static final String IMAGE = "redis:7.0";
    private static final int REDIS_PORT = 6379;

    private final GenericContainer<?> container;

    private DockerRedis(GenericContainer<?> container) {
        this.container = container;
    }

    /** Asks Testcontainers whether a Docker engine answers. Never throws. */
    static boolean dockerAnswers() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable e) { // also NoClassDefFoundError when Testcontainers is not on the classpath
            LOG.debugf("Docker is not usable: %s", e.toString());
            return false;
        }
    }

    /** Starts a {@value #IMAGE} container; it is stopped by a shutdown hook (and by Testcontainers' Ryuk). */
    static DockerRedis start() {
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(IMAGE))
                .withExposedPorts(REDIS_PORT)
                .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1));
        container.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                container.stop();
            } catch (Throwable ignored) {
                // e.g. the class loader is already closed at JVM exit; Ryuk removes the container anyway
            }
        }, "ratelimit-redis-container-stop"));
        return new DockerRedis(container);
    }

    String host() {
        return container.getHost();
    }

    int port() {
        return container.getMappedPort(REDIS_PORT);
    }
}
