package dev.ratelimit.runtime.vertx;

import java.io.IOException;

/** What the Vert.x Redis client's failures say about the connection they happened on. */
public final class ConnectionErrors {

    private ConnectionErrors() {
    }

    /** A failure that says the connection itself is gone (as opposed to an error reply from Redis). */
    public static boolean isConnectionLost(Throwable t) {
        if (t instanceof IOException) {
            return true;
        }
        String m = t.getMessage();
        return m != null && (m.startsWith("CONNECTION_CLOSED") || m.startsWith("Connection is closed"));
    }
}
