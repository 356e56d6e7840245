package dev.ratelimit.deployment.plans;

import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.stream.Collectors;

/** The log records of the policy registry, as the tests read them. */
final class PlanLogs {

    static final String REGISTRY = "dev.ratelimit.runtime.policy.PolicyRegistry";

    private PlanLogs() {
    }

    /** The WARN records (JBoss LogManager has its own Level objects: compared by value) whose text contains {@code text}. */
    static List<String> warnings(List<LogRecord> records, String text) {
        return records.stream().filter(r -> r.getLevel().intValue() == Level.WARNING.intValue())
                .map(PlanLogs::text).filter(m -> m.contains(text)).toList();
    }

    static String describe(List<LogRecord> records) {
        return records.stream().map(r -> r.getLevel() + " " + r.getLoggerName() + ": " + text(r))
                .collect(Collectors.joining("\n"));
    }

    /** The message with its parameters ({@code warnf} records keep the pattern and the parameters apart). */
    private static String text(LogRecord r) {
        Object[] parameters = r.getParameters();
        return parameters == null || parameters.length == 0 ? r.getMessage() : String.format(r.getMessage(), parameters);
    }
}
