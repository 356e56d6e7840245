package dev.ratelimit.benchmark;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A minimal pipelining RESP client for the Redis-cost suite: it writes a batch of commands, then
 * reads (and discards) their replies, from one thread. Redis then runs the commands back to back,
 * and the JVM, idle while it waits, takes no CPU from it: {@code usec_per_call} is Redis' own cost.
 */
final class RespPipe implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private int queued;

    RespPipe(String host, int port) {
        try {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), 3000);
            out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
            in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Queues one command. */
    void send(String... args) {
        try {
            out.write('*');
            out.write(Integer.toString(args.length).getBytes(StandardCharsets.US_ASCII));
            out.write('\r');
            out.write('\n');
            for (String a : args) {
                byte[] b = a.getBytes(StandardCharsets.UTF_8);
                out.write('$');
                out.write(Integer.toString(b.length).getBytes(StandardCharsets.US_ASCII));
                out.write('\r');
                out.write('\n');
                out.write(b);
                out.write('\r');
                out.write('\n');
            }
            queued++;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Flushes the queued commands and reads their replies; fails on the first error reply. */
    void sync() {
        try {
            out.flush();
            for (; queued > 0; queued--) {
                skipReply();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void skipReply() throws IOException {
        int type = in.read();
        String line = readLine();
        switch (type) {
            case '-':
                throw new IllegalStateException("Redis error: " + line);
            case '$': {
                int n = Integer.parseInt(line);
                if (n >= 0) {
                    in.skipNBytes(n + 2L);
                }
                break;
            }
            case '*': {
                int n = Integer.parseInt(line);
                for (int i = 0; i < n; i++) {
                    skipReply();
                }
                break;
            }
            case -1:
                throw new EOFException();
            default:
                break; // + and : carry their value on the line
        }
    }

    private String readLine() throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new EOFException();
            }
            sb.append((char) c);
        }
        in.read(); // \n
        return sb.toString();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
