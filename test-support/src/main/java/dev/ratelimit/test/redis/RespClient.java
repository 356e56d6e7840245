package dev.ratelimit.test.redis;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A tiny blocking RESP2 client for tests: one socket, one command at a time, no pooling, no cluster redirects.
 * <p>
 * Replies map to: simple string and bulk string → {@link String} (UTF-8), integer → {@link Long}, array →
 * {@code List<Object>}, null bulk/array → {@code null}; an error reply throws {@link RespException}. I/O failures
 * (connection refused, timeout, connection closed) throw {@link UncheckedIOException} and leave the client unusable.
 * Not thread-safe.
 */
public final class RespClient implements AutoCloseable {

    public static final int CONNECT_TIMEOUT_MILLIS = 3_000;
    public static final int READ_TIMEOUT_MILLIS = 5_000;

    private static final byte[] CRLF = { '\r', '\n' };

    private final String host;
    private final int port;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RespClient(String host, int port) {
        this(new RedisEndpoint(host, port, null, null, 0));
    }

    /** Connects, then sends AUTH (and SELECT) as the endpoint requires. */
    public RespClient(RedisEndpoint endpoint) {
        this.host = endpoint.host();
        this.port = endpoint.port();
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MILLIS);
            s.setSoTimeout(READ_TIMEOUT_MILLIS);
            this.socket = s;
            this.in = new BufferedInputStream(s.getInputStream(), 16 * 1024);
            this.out = new BufferedOutputStream(s.getOutputStream(), 16 * 1024);
        } catch (IOException e) {
            closeQuietly(s);
            throw new UncheckedIOException("Cannot connect to Redis at " + host + ":" + port + ": " + e.getMessage(), e);
        }
        try {
            if (endpoint.password() != null) {
                if (endpoint.user() != null) {
                    call("AUTH", endpoint.user(), endpoint.password());
                } else {
                    call("AUTH", endpoint.password());
                }
            }
            if (endpoint.database() != 0) {
                call("SELECT", Integer.toString(endpoint.database()));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Connects to a {@code redis://[[user]:password@]host[:port][/db]} URI. */
    public static RespClient connect(String uri) {
        return new RespClient(RedisEndpoint.parse(uri));
    }

    /** Sends one command and returns its decoded reply. */
    public Object call(String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("No command");
        }
        try {
            writeCommand(args);
            return readReply();
        } catch (IOException e) {
            close(); // the stream position is unknown now: do not reuse this connection
            throw new UncheckedIOException(
                    "Redis " + host + ":" + port + " failed on " + args[0] + ": " + e.getMessage(), e);
        }
    }

    /** {@link #call} for commands whose reply is a string (e.g. PING, GET, INFO, SCRIPT LOAD). */
    public String callString(String... args) {
        return (String) call(args);
    }

    /** {@link #call} for commands whose reply is an integer (e.g. INCR, DEL, CLUSTER KEYSLOT). */
    public long callLong(String... args) {
        return (Long) call(args);
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    @Override
    public void close() {
        closeQuietly(socket);
    }

    private void writeCommand(String[] args) throws IOException {
        out.write('*');
        out.write(ascii(args.length));
        out.write(CRLF);
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            out.write('$');
            out.write(ascii(bytes.length));
            out.write(CRLF);
            out.write(bytes);
            out.write(CRLF);
        }
        out.flush();
    }

    private Object readReply() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed by server");
        }
        switch (type) {
            case '+':
                return readLine();
            case '-':
                throw new RespException(readLine());
            case ':':
                return Long.parseLong(readLine());
            case '$': {
                int length = Integer.parseInt(readLine());
                if (length < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(length);
                if (data.length < length || in.read() != '\r' || in.read() != '\n') {
                    throw new EOFException("truncated bulk string");
                }
                return new String(data, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(readLine());
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    try {
                        items.add(readReply());
                    } catch (RespException e) {
                        // an error nested in an array (e.g. EXEC) is a value, not a failure of the whole reply
                        items.add(e);
                    }
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type byte '" + (char) type + "'");
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed by server");
            }
            if (b == '\r') {
                int next = in.read();
                if (next == '\n') {
                    return line.toString(StandardCharsets.UTF_8);
                }
                line.write(b);
                if (next < 0) {
                    throw new EOFException("connection closed by server");
                }
                line.write(next);
            } else {
                line.write(b);
            }
        }
    }

    private static byte[] ascii(int n) {
        return Integer.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing useful to do
        }
    }
}
