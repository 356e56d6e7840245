package dev.ratelimit.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import io.restassured.RestAssured;

/**
 * Sends a request byte for byte (HTTP clients refuse or re-encode header values that are not
 * ASCII), from a given local address, and reads the status and headers of the answer.
 */
final class RawHttp {

    record Reply(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private RawHttp() {
    }

    /** GET {@code path} with one extra header whose value is sent as exactly these bytes. */
    static Reply get(InetAddress from, String path, String headerName, byte[] headerValue) {
        ByteArrayOutputStream header = new ByteArrayOutputStream();
        header.writeBytes((headerName + ": ").getBytes(StandardCharsets.US_ASCII));
        header.writeBytes(headerValue);
        header.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        return send(from, path, header.toByteArray());
    }

    /**
     * GET with this request target on the request line exactly as written (a path no HTTP client would send
     * unchanged: {@code /a/../b}, {@code //a}, {@code /a;x=1}, or the absolute form) and these header lines, in this
     * order ({@code name, value, name, value...}): a name given twice is sent as two lines.
     */
    static Reply get(InetAddress from, String path, String... namesAndValues) {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            lines.append(namesAndValues[i]).append(": ").append(namesAndValues[i + 1]).append("\r\n");
        }
        return send(from, path, lines.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    private static Reply send(InetAddress from, String path, byte[] headerLines) {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), RestAssured.port), 3000);
            socket.setSoTimeout(5000);
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.writeBytes(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            request.writeBytes(headerLines);
            request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            OutputStream out = socket.getOutputStream();
            out.write(request.toByteArray());
            out.flush();
            return parse(socket.getInputStream().readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Reply parse(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        String head = end < 0 ? text : text.substring(0, end);
        String[] lines = head.split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
        return new Reply(status, headers, end < 0 ? "" : text.substring(end + 4));
    }
}
