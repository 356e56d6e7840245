package dev.ratelimit.runtime.algorithm;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The algorithms, by their configuration names (which are also the names the Lua scripts use).
 */
public enum Algorithm {
    FIXED_WINDOW("fixed-window", false),
    SLIDING_WINDOW_LOG("sliding-window-log", false),
    SLIDING_WINDOW_COUNTER("sliding-window-counter", false),
    TOKEN_BUCKET("token-bucket", true),
    LEAKY_BUCKET("leaky-bucket", true),
    GCRA("gcra", true),
    /** At most {@code limit} requests in flight per key; {@code window} bounds how long a slot is held. */
    CONCURRENCY("concurrency", false);

    private final String configName;
    private final boolean bucket;

    Algorithm(String configName, boolean bucket) {
        this.configName = configName;
        this.bucket = bucket;
    }

    /** The name used in configuration and in the scripts. */
    public String configName() {
        return configName;
    }

    /** Whether {@code burst} applies. */
    public boolean usesBurst() {
        return bucket;
    }

    /**
     * Whether it counts in windows aligned to multiples of its window ({@code fixed-window}, and the counter's two):
     * its count means nothing under another window, so its plans may not change the window.
     */
    public boolean countsInAlignedWindows() {
        return this == FIXED_WINDOW || this == SLIDING_WINDOW_COUNTER;
    }

    /** The algorithm with that configuration name, or {@code null}. */
    public static Algorithm fromConfigName(String name) {
        for (Algorithm a : values()) {
            if (a.configName.equals(name)) {
                return a;
            }
        }
        return null;
    }

    /** The accepted names, for error messages. */
    public static String names() {
        return Arrays.stream(values()).map(Algorithm::configName).collect(Collectors.joining(", "));
    }
}
