package dev.ratelimit.runtime.policy;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which HTTP responses a policy counts ({@code count}): {@code all} (the default), {@code failures} (4xx and 5xx),
 * {@code successes} (the rest), or a list of statuses. A policy that does not count every response reserves its unit
 * before the request and gives it back once the response's status shows it does not count: exact under concurrency,
 * since the unit is held while the request runs.
 */
public record CountedOutcomes(Kind kind, Set<Integer> statuses) {

    /** The forms of {@code count}. */
    public enum Kind {
        ALL,
        FAILURES,
        SUCCESSES,
        STATUSES
    }

    /** Every response counts. */
    public static final CountedOutcomes ALL = new CountedOutcomes(Kind.ALL, Set.of());

    /** What is wrong with the values of {@code count}, or null. */
    public static String problem(List<String> values) {
        try {
            parse(values);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** The outcomes {@code values} name. */
    public static CountedOutcomes parse(List<String> values) {
        List<String> vs = values.stream().map(v -> v.trim().toLowerCase(Locale.ROOT)).filter(v -> !v.isEmpty())
                .toList();
        if (vs.isEmpty()) {
            return ALL;
        }
        if (vs.size() == 1) {
            switch (vs.get(0)) {
                case "all":
                    return ALL;
                case "failures":
                    return new CountedOutcomes(Kind.FAILURES, Set.of());
                case "successes":
                    return new CountedOutcomes(Kind.SUCCESSES, Set.of());
                default:
                    break;
            }
        }
        Set<Integer> statuses = new TreeSet<>();
        for (String v : vs) {
            int status;
            try {
                status = Integer.parseInt(v);
            } catch (NumberFormatException e) {
                status = -1;
            }
            if (status < 100 || status > 599) {
                throw new IllegalArgumentException("'" + v + "' is not all, failures, successes or an HTTP status "
                        + "(100 to 599); a list names statuses only");
            }
            statuses.add(status);
        }
        return new CountedOutcomes(Kind.STATUSES, Set.copyOf(statuses));
    }

    /** Whether a response of this status counts. */
    public boolean counts(int status) {
        return switch (kind) {
            case ALL -> true;
            case FAILURES -> status >= 400;
            case SUCCESSES -> status < 400;
            case STATUSES -> statuses.contains(status);
        };
    }

    /** Whether every response counts (nothing to settle). */
    public boolean all() {
        return kind == Kind.ALL;
    }
}
