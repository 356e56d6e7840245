package dev.ratelimit.deployment;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.Consumer;

import io.quarkus.runtime.configuration.ConfigurationException;

/** What a test of a start that must fail asserts of the failure. */
public final class StartFailures {

    private StartFailures() {
    }

    /** The {@link ConfigurationException} that failed the start, {@code t} or one of its causes; none fails the test. */
    public static ConfigurationException configuration(Throwable t) {
        Throwable c = t;
        while (c != null && !(c instanceof ConfigurationException)) {
            c = c.getCause();
        }
        assertTrue(c != null, "a ConfigurationException must fail the start: " + t);
        return (ConfigurationException) c;
    }

    /** Asserts that a {@link ConfigurationException} failed the start, its message naming every fragment. */
    public static Consumer<Throwable> configurationNaming(String... fragments) {
        return t -> {
            String m = configuration(t).getMessage();
            for (String f : fragments) {
                assertTrue(m.contains(f), () -> "'" + f + "' not in: " + m);
            }
        };
    }
}
