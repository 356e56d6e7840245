package dev.ratelimit.test.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.jboss.logging.Logger;

/**
 * A real {@code redis-server} child process on 127.0.0.1, using the binary shipped in the {@code org.signal:embedded-redis}
 * jar (or the one named by system property {@code ratelimit.test.redis-server} / env {@code RATELIMIT_TEST_REDIS_SERVER}).
 * <p>
 * No persistence ({@code --save "" --appendonly no}); each process has its own working directory under one temp folder
 * per JVM, and its output goes to {@code redis-server.log} there (a file, so no pipe can fill up and block the server).
 * A JVM shutdown hook stops every process that was started and deletes that folder.
 * <p>
 * Why the state lives in system properties: Quarkus tests load this class in several class loaders (one per
 * application started), each with its own statics. The pid of the running server, its arguments and the temp folder
 * are kept as JVM-wide string system properties keyed by port, so that a {@code kill()}/{@code restart()} issued from
 * one class loader acts on the very process another class loader started.
 */
public final class RedisServerProcess {

    private static final Logger LOG = Logger.getLogger(RedisServerProcess.class);

    /** Version of the redis-server binaries inside embedded-redis 0.9.1. */
    public static final String REDIS_VERSION = "7.0.15";

    /** Optional path of another redis-server binary to use instead of the bundled one. */
    public static final String BINARY_PROPERTY = "ratelimit.test.redis-server";
    public static final String BINARY_ENV = "RATELIMIT_TEST_REDIS_SERVER";

    public static final String HOST = "127.0.0.1";

    static final long START_TIMEOUT_MILLIS = 10_000;

    /*
     * A string literal is interned, so every class loader's copy of this class gets the same object: a lock that is
     * really JVM-wide. Held only for short bookkeeping, never while waiting for a server.
     */
    static final Object JVM_LOCK = "dev.ratelimit.test.redis.jvm-lock";

    private static final String PREFIX = "ratelimit.test.internal.";
    private static final String ROOT_KEY = PREFIX + "redis-root";
    private static final String BINARY_KEY = PREFIX + "redis-binary";
    private static final String PID_PREFIX = PREFIX + "redis-pid.";
    private static final String ARGS_PREFIX = PREFIX + "redis-args.";

    private final int port;
    private final List<String> extraArgs;
    private final Path dir;
    private final Path logFile;

    /** A server on a free port; not started yet. */
    public RedisServerProcess(String... extraArgs) {
        this(freePort(), Arrays.asList(extraArgs));
    }

    /** A server on the given port; not started yet. */
    public RedisServerProcess(int port, String... extraArgs) {
        this(port, Arrays.asList(extraArgs));
    }

    /** A server on the given port with extra {@code --option value} arguments; not started yet. */
    public RedisServerProcess(int port, List<String> extraArgs) {
        this(port, extraArgs, true);
    }

    private RedisServerProcess(int port, List<String> extraArgs, boolean register) {
        this.port = port;
        this.extraArgs = List.copyOf(extraArgs);
        this.dir = root().resolve("redis-" + port);
        this.logFile = dir.resolve("redis-server.log");
        if (register) {
            synchronized (JVM_LOCK) {
                System.setProperty(ARGS_PREFIX + port, String.join("\n", this.extraArgs));
            }
        }
    }

    /** The process on that port created by any class loader of this JVM. */
    static RedisServerProcess attach(int port) {
        String args = System.getProperty(ARGS_PREFIX + port);
        if (args == null) {
            throw new IllegalStateException("No redis-server was created on port " + port + " in this JVM");
        }
        return new RedisServerProcess(port, args.isEmpty() ? List.of() : Arrays.asList(args.split("\n", -1)), false);
    }

    /** Starts the server and waits until it answers PING; does nothing if it is already running. */
    public RedisServerProcess start() {
        if (isAlive()) {
            return this;
        }
        List<String> command = command();
        long logOffset;
        Process process;
        try {
            Files.createDirectories(dir);
            logOffset = Files.exists(logFile) ? Files.size(logFile) : 0;
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(Redirect.appendTo(logFile.toFile()));
            process = launch(builder);
            process.getOutputStream().close(); // redis never reads stdin
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + String.join(" ", command), e);
        }
        synchronized (JVM_LOCK) {
            System.setProperty(PID_PREFIX + port, Long.toString(process.pid()));
        }
        awaitPing(process, logOffset);
        LOG.debugf("Started redis-server pid %d on %s:%d %s (log %s)", process.pid(), HOST, port, extraArgs, logFile);
        return this;
    }

    /** Graceful stop: SHUTDOWN NOSAVE, then a forced kill if the process is still there after 5 s. */
    public void stop() {
        ProcessHandle handle = handle();
        if (handle == null || !handle.isAlive()) {
            return;
        }
        try (RespClient client = client()) {
            try {
                client.call("SHUTDOWN", "NOSAVE", "NOW"); // NOW: do not wait for lagging replicas (Redis 7)
            } catch (RespException e) {
                if ("NOAUTH".equals(e.code())) {
                    handle.destroy(); // started with --requirepass: SIGTERM is a graceful shutdown too
                } else {
                    client.call("SHUTDOWN", "NOSAVE"); // older server given through BINARY_PROPERTY
                }
            }
        } catch (RuntimeException expected) {
            // a successful SHUTDOWN closes the connection instead of replying
        }
        if (!awaitExit(handle, 5_000)) {
            handle.destroyForcibly();
            awaitExit(handle, 5_000);
        }
        LOG.debugf("Stopped redis-server on port %d", port);
    }

    /** Kills the process at once (SIGKILL), like a crash; returns when it is gone. */
    public void kill() {
        ProcessHandle handle = handle();
        if (handle == null) {
            return;
        }
        handle.destroyForcibly();
        if (!awaitExit(handle, 5_000)) {
            throw new IllegalStateException("redis-server pid " + handle.pid() + " did not die after SIGKILL");
        }
        LOG.debugf("Killed redis-server on port %d", port);
    }

    /** Stops the server if it runs, then starts it again on the same port with the same arguments and directory. */
    public RedisServerProcess restart() {
        stop();
        return start();
    }

    public boolean isAlive() {
        ProcessHandle handle = handle();
        return handle != null && handle.isAlive();
    }

    public int port() {
        return port;
    }

    public String host() {
        return HOST;
    }

    /** {@code redis://127.0.0.1:port} */
    public String uri() {
        return "redis://" + HOST + ":" + port;
    }

    /** Pid of the current process, or -1 if never started. */
    public long pid() {
        String pid = System.getProperty(PID_PREFIX + port);
        return pid == null ? -1 : Long.parseLong(pid);
    }

    /** Working directory of the server ({@code --dir}). */
    public Path dir() {
        return dir;
    }

    /** File receiving the server's stdout and stderr (appended across restarts). */
    public Path logFile() {
        return logFile;
    }

    public List<String> extraArgs() {
        return extraArgs;
    }

    /** A new connection to this server. */
    public RespClient client() {
        return new RespClient(HOST, port);
    }

    /** The last lines of the server output, for error messages. */
    public String logTail() {
        return readLog(0);
    }

    @Override
    public String toString() {
        return "redis-server[" + HOST + ":" + port + ", pid " + pid() + "]";
    }

    // ------------------------------------------------------------------------------------------------------------

    /** A port that was free a moment ago (a tiny race with other processes is accepted for tests). */
    public static int freePort() {
        return freePorts(1)[0];
    }

    /** Several distinct free ports: all sockets are held open together so the kernel cannot hand out one twice. */
    public static int[] freePorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0);
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find a free port", e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // best effort
                }
            }
        }
    }

    /** The redis-server executable, copied out of the embedded-redis jar once per JVM. */
    public static Path binary() {
        String override = System.getProperty(BINARY_PROPERTY, System.getenv(BINARY_ENV));
        if (override != null && !override.isBlank()) {
            return Paths.get(override);
        }
        synchronized (JVM_LOCK) {
            String known = System.getProperty(BINARY_KEY);
            if (known != null) {
                return Paths.get(known);
            }
            String resource = "/redis-server-" + REDIS_VERSION + "-" + platform();
            Path target = root().resolve(resource.substring(1));
            try (InputStream in = RedisServerProcess.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("Resource " + resource
                            + " not found: is org.signal:embedded-redis on the test classpath?");
                }
                Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot extract " + resource, e);
            }
            if (!target.toFile().setExecutable(true, true)) {
                throw new IllegalStateException("Cannot make " + target + " executable");
            }
            System.setProperty(BINARY_KEY, target.toString());
            return target;
        }
    }

    private static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String osPart;
        if (os.contains("linux")) {
            osPart = "linux";
        } else if (os.contains("mac") || os.contains("darwin")) {
            osPart = "darwin";
        } else {
            throw unsupported(os, arch);
        }
        String archPart;
        if (arch.equals("amd64") || arch.equals("x86_64")) {
            archPart = "amd64";
        } else if (arch.equals("aarch64") || arch.equals("arm64")) {
            archPart = "arm64";
        } else if (osPart.equals("linux") && arch.matches("x86|i[3-6]86")) {
            archPart = "386";
        } else {
            throw unsupported(os, arch);
        }
        return osPart + "-" + archPart;
    }

    private static IllegalStateException unsupported(String os, String arch) {
        return new IllegalStateException("No bundled redis-server for " + os + "/" + arch + "; set -D" + BINARY_PROPERTY
                + "=/path/to/redis-server or -D" + RedisFixture.URL_PROPERTY + "=redis://host:port");
    }

    /** One temp folder per JVM for the binary and every server's directory; deleted at exit. */
    static Path root() {
        synchronized (JVM_LOCK) {
            String known = System.getProperty(ROOT_KEY);
            if (known != null) {
                return Paths.get(known);
            }
            Path root;
            try {
                root = Files.createTempDirectory("ratelimit-redis-");
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot create a temp directory", e);
            }
            System.setProperty(ROOT_KEY, root.toString());
            Thread hook = new Thread(RedisServerProcess::stopAllAtExit, "ratelimit-redis-cleanup");
            Runtime.getRuntime().addShutdownHook(hook);
            return root;
        }
    }

    /*
     * Shutdown hook body. Uses only JDK classes and no lambdas: by JVM exit the (Quarkus) class loader that loaded this
     * class may be closed, so nothing must need loading any more. There is nothing to save, so SIGTERM then SIGKILL.
     */
    private static void stopAllAtExit() {
        List<ProcessHandle> running = new ArrayList<>();
        for (String key : System.getProperties().stringPropertyNames()) {
            if (key.startsWith(PID_PREFIX)) {
                ProcessHandle handle = ProcessHandle.of(Long.parseLong(System.getProperty(key))).orElse(null);
                if (handle != null && handle.isAlive()) {
                    handle.destroy();
                    running.add(handle);
                }
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        for (ProcessHandle handle : running) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !awaitExit(handle, TimeUnit.NANOSECONDS.toMillis(left))) {
                handle.destroyForcibly();
                awaitExit(handle, 2_000);
            }
        }
        String root = System.getProperty(ROOT_KEY);
        if (root != null) {
            deleteTree(Paths.get(root));
        }
    }

    private static void deleteTree(Path root) {
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(root)) {
            paths = walk.collect(Collectors.toList());
        } catch (IOException e) {
            return;
        }
        Collections.reverse(paths); // children before parents
        for (Path path : paths) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // best effort at exit
            }
        }
    }

    private List<String> command() {
        List<String> command = new ArrayList<>();
        command.add(binary().toString());
        command.addAll(List.of("--port", Integer.toString(port), "--bind", HOST, "--save", "", "--appendonly", "no",
                "--protected-mode", "no", "--dir", dir.toString()));
        command.addAll(extraArgs);
        return command;
    }

    private static Process launch(ProcessBuilder builder) throws IOException {
        for (int attempt = 1;; attempt++) {
            try {
                return builder.start();
            } catch (IOException e) {
                // "error=26, Text file busy": another thread forked while the freshly copied binary was still open
                // for writing; the fd goes away as soon as that child execs, so a short retry is enough.
                if (attempt >= 5 || e.getMessage() == null || !e.getMessage().contains("error=26")) {
                    throw e;
                }
                sleep(50);
            }
        }
    }

    private void awaitPing(Process process, long logOffset) {
        long deadline = System.currentTimeMillis() + START_TIMEOUT_MILLIS;
        RuntimeException last = null;
        while (System.currentTimeMillis() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + port + " exited with code "
                        + process.exitValue() + " while starting. Output:\n" + readLog(logOffset));
            }
            try (RespClient client = client()) {
                if ("PONG".equals(client.call("PING"))) {
                    return;
                }
            } catch (RespException e) {
                if ("NOAUTH".equals(e.code())) {
                    return; // up, but started with --requirepass
                }
                last = e; // e.g. LOADING
            } catch (UncheckedIOException e) {
                last = e; // not listening yet
            }
            sleep(10);
        }
        process.destroyForcibly();
        throw new IllegalStateException("redis-server on port " + port + " did not answer PING within "
                + START_TIMEOUT_MILLIS + " ms (last error: " + (last == null ? "none" : last.getMessage())
                + "). Output:\n" + readLog(logOffset));
    }

    private String readLog(long from) {
        // at most the last 8 KiB of this run's output
        try (RandomAccessFile file = new RandomAccessFile(logFile.toFile(), "r")) {
            long start = Math.max(from, file.length() - 8192);
            byte[] bytes = new byte[(int) (file.length() - start)];
            file.seek(start);
            file.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    private ProcessHandle handle() {
        long pid = pid();
        return pid < 0 ? null : ProcessHandle.of(pid).orElse(null);
    }

    private static boolean awaitExit(ProcessHandle handle, long millis) {
        try {
            handle.onExit().get(millis, TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            return !handle.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !handle.isAlive();
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }
}
