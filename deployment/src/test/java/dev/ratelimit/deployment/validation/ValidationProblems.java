package dev.ratelimit.deployment.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.inject.spi.DeploymentException;


/**
 * How the extension's build-time problems reach the user: through ArC's validation phase, as one
 * {@link DeploymentException}. ArC ({@code BeanDeployment.processErrors}) makes a single problem
 * its cause, and several problems its suppressed exceptions under a "Found N deployment problems"
 * message that lists each one.
 */
final class ValidationProblems {

    private ValidationProblems() {
    }

    /** Every problem reported, asserting that there are exactly {@code expected} and that all are the extension's. */
    static List<RateLimitValidationException> problems(Throwable thrown, int expected) {
        String chain = allMessages(thrown);
        DeploymentException d = assertInstanceOf(DeploymentException.class, thrown,
                "the build must fail through ArC's validation; got:\n" + chain);
        List<Throwable> all = new ArrayList<>();
        if (expected == 1) {
            assertEquals(0, d.getSuppressed().length, "one problem expected:\n" + chain);
            assertNotNull(d.getCause(), "one problem is the cause of the DeploymentException:\n" + chain);
            all.add(d.getCause());
        } else {
            assertNull(d.getCause(), "several problems are suppressed exceptions, not a cause:\n" + chain);
            all.addAll(List.of(d.getSuppressed()));
            assertEquals(expected, all.size(), "number of problems reported:\n" + chain);
            assertTrue(d.getMessage().contains("Found " + expected + " deployment problems"), d.getMessage());
            for (Throwable t : all) {
                assertTrue(d.getMessage().contains(t.getMessage()), "the summary lists every problem: " + d.getMessage());
            }
        }
        List<RateLimitValidationException> ours = new ArrayList<>();
        for (Throwable t : all) {
            ours.add(assertInstanceOf(RateLimitValidationException.class, t, "not a rate-limit problem: " + t));
        }
        return ours;
    }

    /** The single problem of the given type whose message contains {@code marker}; fails if none or several. */
    static <T extends RateLimitValidationException> T find(List<RateLimitValidationException> problems, Class<T> type,
            String marker) {
        T found = null;
        for (RateLimitValidationException p : problems) {
            if (type.isInstance(p) && p.getMessage().contains(marker)) {
                if (found != null) {
                    fail("two " + type.getSimpleName() + " mention '" + marker + "': " + describe(problems));
                }
                found = type.cast(p);
            }
        }
        assertNotNull(found, "no " + type.getSimpleName() + " mentioning '" + marker + "' in " + describe(problems));
        return found;
    }

    /** Asserts that the message names every fragment (class, method, policy, property...). */
    static void assertNames(Throwable problem, String... fragments) {
        for (String f : fragments) {
            assertTrue(problem.getMessage().contains(f), "message should name '" + f + "': " + problem.getMessage());
        }
    }

    /** The property of a policy attribute, as users write it. */
    static String property(String policy, String attribute) {
        return "quarkus.ratelimit.policies." + policy + "." + attribute;
    }

    /** Every message in a throwable's cause chain, suppressed exceptions included, one per line. */
    static String allMessages(Throwable t) {
        StringBuilder sb = new StringBuilder();
        collect(t, sb, 0);
        return sb.toString();
    }

    private static void collect(Throwable t, StringBuilder sb, int depth) {
        if (t == null || depth > 20) {
            return;
        }
        sb.append(t.getClass().getName()).append(": ").append(t.getMessage()).append('\n');
        for (Throwable s : t.getSuppressed()) {
            collect(s, sb, depth + 1);
        }
        collect(t.getCause(), sb, depth + 1);
    }

    private static String describe(List<? extends Throwable> problems) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t : problems) {
            sb.append("\n  - ").append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
        }
        return sb.toString();
    }
}
