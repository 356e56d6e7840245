package dev.ratelimit.test.redis;

/**
 * An error reply ({@code -ERR ...}) from Redis. The message is the server's text as sent, e.g.
 * {@code "NOSCRIPT No matching script. Please use EVAL."} or {@code "MOVED 1234 127.0.0.1:7001"}.
 */
public class RespException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RespException(String serverMessage) {
        super(serverMessage);
    }

    /** The first word of the error, e.g. {@code ERR}, {@code NOSCRIPT}, {@code MOVED}, {@code WRONGTYPE}. */
    public String code() {
        String m = getMessage();
        int space = m.indexOf(' ');
        return space < 0 ? m : m.substring(0, space);
    }
}
