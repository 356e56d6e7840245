package dev.ratelimit.test.redis;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * Host, port and credentials of one Redis server, parsed from a {@code redis://[[user]:password@]host[:port][/db]} URI.
 */
public final class RedisEndpoint {

    private final String host;
    private final int port;
    private final String user;
    private final String password;
    private final int database;
    private final String uri;

    public RedisEndpoint(String host, int port, String user, String password, int database) {
        this.host = host;
        this.port = port;
        this.user = emptyToNull(user);
        this.password = emptyToNull(password);
        this.database = database;
        this.uri = null;
    }

    private RedisEndpoint(String host, int port, String user, String password, int database, String uri) {
        this.host = host;
        this.port = port;
        this.user = emptyToNull(user);
        this.password = emptyToNull(password);
        this.database = database;
        this.uri = uri;
    }

    /**
     * Parses {@code redis://host:port}, {@code redis://:password@host:port}, {@code redis://user:password@host:port}
     * (optionally with {@code /db}). A user info without a colon is taken as the password (as most clients do).
     */
    public static RedisEndpoint parse(String uri) {
        String text = uri.trim();
        URI parsed;
        try {
            parsed = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("Not a Redis URI: " + uri, e);
        }
        if (!"redis".equalsIgnoreCase(parsed.getScheme())) {
            // TLS (rediss://) would need more than a plain socket; tests do not need it.
            throw new IllegalArgumentException("Only redis:// URIs are supported by the test fixtures: " + uri);
        }
        if (parsed.getHost() == null) {
            throw new IllegalArgumentException("No host in Redis URI: " + uri);
        }
        String user = null;
        String password = null;
        String userInfo = parsed.getUserInfo(); // already percent-decoded
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                password = userInfo;
            } else {
                user = userInfo.substring(0, colon);
                password = userInfo.substring(colon + 1);
            }
        }
        int db = 0;
        String path = parsed.getPath();
        if (path != null && path.length() > 1) {
            db = Integer.parseInt(path.substring(1));
        }
        int port = parsed.getPort() < 0 ? 6379 : parsed.getPort();
        return new RedisEndpoint(parsed.getHost(), port, user, password, db, text);
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** ACL user name, or null for the default user. */
    public String user() {
        return user;
    }

    /** Password, or null when the server needs none. */
    public String password() {
        return password;
    }

    public int database() {
        return database;
    }

    /** The URI as given to {@link #parse}, or {@code redis://host:port} when built from parts (credentials omitted). */
    public String uri() {
        return uri != null ? uri : "redis://" + host + ":" + port + (database != 0 ? "/" + database : "");
    }

    /** Opens a new connection (AUTH and SELECT done when needed). */
    public RespClient client() {
        return new RespClient(this);
    }

    @Override
    public String toString() {
        // never print the password
        return "redis://" + host + ":" + port + (password != null ? " (with password)" : "");
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
