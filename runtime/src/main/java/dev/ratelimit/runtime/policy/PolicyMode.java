package dev.ratelimit.runtime.policy;

import java.util.Locale;

/**
 * Whether a policy denies ({@code enforce}) or only decides and reports ({@code shadow}).
 */
public enum PolicyMode {
    /** Denies requests over the limit. */
    ENFORCE,
    /** Decides and reports, never denies: for dark-launching a limit. */
    SHADOW;

    /** The value as written in the configuration. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
