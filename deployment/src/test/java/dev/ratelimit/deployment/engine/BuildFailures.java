package dev.ratelimit.deployment.engine;

import java.util.IdentityHashMap;
import java.util.Map;

/** Build failures arrive wrapped; the messages of the whole cause chain are what a user reads. */
final class BuildFailures {

    private BuildFailures() {
    }

    static String messages(Throwable t) {
        StringBuilder all = new StringBuilder();
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable c = t; c != null && seen.put(c, true) == null; c = c.getCause()) {
            all.append(c.getClass().getName()).append(": ").append(c.getMessage()).append('\n');
            for (Throwable s : c.getSuppressed()) {
                all.append("  suppressed ").append(messages(s));
            }
        }
        return all.toString();
    }
}
