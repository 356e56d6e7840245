package dev.ratelimit.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged demo application ({@code target/quarkus-app/quarkus-run.jar}) started as a process of its own, in
 * production mode, as it runs in a deployment: configured by environment variables, a {@code .env} file in its working
 * directory, or system properties. Its output goes to a log file, readable with {@link #log()}.
 */
final class AppProcess implements AutoCloseable {

    private static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar").toAbsolutePath();

    private final Process process;
    private final int port;
    /** The management interface's port (the rate-limit admin endpoint). */
    private int managementPort;
    private final Path logFile;

    private AppProcess(Process process, int port, Path logFile) {
        this.process = process;
        this.port = port;
        this.logFile = logFile;
    }

    /**
     * Starts the application and waits until it answers HTTP.
     *
     * @param env environment variables added to this JVM's
     * @param workDir its working directory (where it reads {@code .env})
     * @param properties system properties ({@code -Dname=value})
     */
    static AppProcess start(Map<String, String> env, Path workDir, Map<String, String> properties) {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR + " is missing: run the package phase first (./mvnw verify)");
        }
        int port = freePort();
        try {
            Path log = Files.createTempFile("ratelimit-app-", ".log");
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.add("-Dquarkus.http.port=" + port);
            int managementPort = freePort(); // two instances on one host: each its own management interface
            cmd.add("-Dquarkus.management.port=" + managementPort);
            properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
            cmd.add("-jar");
            cmd.add(JAR.toString());
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(workDir.toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            pb.environment().putAll(env);
            AppProcess app = new AppProcess(pb.start(), port, log);
            app.managementPort = managementPort;
            app.awaitHttp(Duration.ofSeconds(60));
            return app;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code n} instances of the application sharing one Redis under one key prefix, each in a working directory of
     * its own: what several instances of one service behind a load balancer are.
     */
    static List<AppProcess> instances(int n, String redisUri, String keyPrefix) {
        return instances(n, redisUri, keyPrefix, Map.of());
    }

    /** As above, with more environment variables ({@code env}) for each instance. */
    static List<AppProcess> instances(int n, String redisUri, String keyPrefix, Map<String, String> env) {
        List<AppProcess> apps = new ArrayList<>(n);
        Map<String, String> all = new java.util.HashMap<>(env);
        all.put("QUARKUS_REDIS_HOSTS", redisUri);
        all.put("QUARKUS_RATELIMIT_KEY_PREFIX", keyPrefix);
        try {
            for (int i = 0; i < n; i++) {
                apps.add(start(all, Files.createTempDirectory("ratelimit-instance"), Map.of()));
            }
        } catch (IOException e) {
            apps.forEach(AppProcess::close);
            throw new UncheckedIOException(e);
        }
        return apps;
    }

    /** {@code path} on this instance's management interface. */
    String managementUrl(String path) {
        return "http://localhost:" + managementPort + path;
    }

    String url(String path) {
        return "http://localhost:" + port + path;
    }

    int port() {
        return port;
    }

    String log() {
        try {
            return Files.readString(logFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitHttp(Duration timeout) {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the application exited with " + process.exitValue() + ":\n" + log());
            }
            try {
                client.send(HttpRequest.newBuilder(URI.create(url("/q/none"))).timeout(Duration.ofSeconds(1)).build(),
                        HttpResponse.BodyHandlers.discarding());
                return;
            } catch (IOException e) {
                sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        close();
        throw new IllegalStateException("the application did not answer HTTP within " + timeout + ":\n" + log());
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
