package dev.ratelimit.runtime.algorithm;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The algorithms, by their configuration names (which are also the names the Lua scripts register them under): each
 * names the Lua source Redis decides it with ({@link #scripts()}) and its twin deciding it in process
 * ({@link #inProcess()}), number for number the same. See {@code package-info.java} for adding one.
 */
public enum Algorithm {
    FIXED_WINDOW("fixed-window", new FixedWindowAlgorithm(), Trait.ALIGNED_WINDOWS),
    SLIDING_WINDOW_LOG("sliding-window-log", new SlidingLogAlgorithm()),
    SLIDING_WINDOW_COUNTER("sliding-window-counter", new SlidingCounterAlgorithm(), Trait.ALIGNED_WINDOWS),
    TOKEN_BUCKET("token-bucket", BucketAlgorithm.SHARED, Trait.BURST),
    LEAKY_BUCKET("leaky-bucket", BucketAlgorithm.SHARED, Trait.BURST),
    GCRA("gcra", BucketAlgorithm.SHARED, Trait.BURST),
    /** At most {@code limit} requests in flight per key; {@code window} bounds how long a slot is held. */
    CONCURRENCY("concurrency", new ConcurrencyAlgorithm(), Trait.LEASES);

    /** What the rest of the extension needs to know of an algorithm beyond how it decides. */
    private enum Trait {
        /** {@code burst} applies. */
        BURST,
        /** Counts in windows aligned to multiples of its window. */
        ALIGNED_WINDOWS,
        /** A charge takes slots that its caller frees. */
        LEASES
    }

    private final String configName;
    private final InProcessAlgorithm inProcess;
    // fields rather than a set of traits: read on every decision
    private final boolean burst;
    private final boolean alignedWindows;
    private final boolean leases;

    Algorithm(String configName, InProcessAlgorithm inProcess, Trait... traits) {
        this.configName = configName;
        this.inProcess = inProcess;
        List<Trait> has = List.of(traits);
        this.burst = has.contains(Trait.BURST);
        this.alignedWindows = has.contains(Trait.ALIGNED_WINDOWS);
        this.leases = has.contains(Trait.LEASES);
    }

    /** The name used in configuration and in the scripts. */
    public String configName() {
        return configName;
    }

    /** Its twin deciding in process, as its script decides in Redis. */
    public InProcessAlgorithm inProcess() {
        return inProcess;
    }

    /**
     * The Lua sources that decide it, relative to {@code dev/ratelimit/lua/}, in the order the build composes them:
     * the file its in-process twin mirrors when algorithms share it ({@code bucket.lua}), then its own
     * {@code <config-name>.lua}, which registers it under its configuration name.
     */
    public List<String> scripts() {
        String own = configName + ".lua";
        String shared = inProcess.script();
        return shared.equals(own) ? List.of(own) : List.of(shared, own);
    }

    /** Whether {@code burst} applies. */
    public boolean usesBurst() {
        return burst;
    }

    /**
     * Whether it counts in windows aligned to multiples of its window ({@code fixed-window}, and the counter's two):
     * its count means nothing under another window, so its plans may not change the window.
     */
    public boolean countsInAlignedWindows() {
        return alignedWindows;
    }

    /**
     * Whether a charge takes slots named after the call's lease, freed when the call ends ({@code concurrency}):
     * such a policy's keys are apart from the rate algorithms', and a denial of it is never cached.
     */
    public boolean holdsLeases() {
        return leases;
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
