package dev.ratelimit.runtime.config;

/**
 * One problem of a configured policy, with what it is about: the start reports them all in one message, the build
 * one exception each, of a type per kind.
 *
 * @param kind what the problem is about
 * @param policy the policy's name
 * @param plan the plan's name, or null for a problem of the policy itself
 * @param message what is wrong and the property to fix
 */
public record PolicyProblem(Kind kind, String policy, String plan, String message) {

    /** What a problem is about. */
    public enum Kind {
        /** The algorithm, limit, window or burst, of the policy or of a plan. */
        VALUE,
        /** The key source. */
        KEY,
        /** A pattern of {@code paths}. */
        PATH
    }
}
