package dev.ratelimit.runtime.policy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import org.eclipse.microprofile.config.Config;

/**
 * The policies' properties as configured, in every spelling SmallRye Config accepts: plain and quoted names
 * ({@code policies.api.limit}, {@code policies."api".limit}), names with dots (quoted), environment variables
 * ({@code QUARKUS_RATELIMIT_POLICIES__API__LIMIT}, which SmallRye lists as {@code policies."api".limit}), {@code .env}
 * and the active profile's {@code %prod.} properties (listed without their prefix; other profiles' keep theirs and are
 * skipped). The same holds for the names of plans ({@code policies.api.plans."gold".limit}).
 * <p>
 * The quoted and the plain spelling of a name are one property, but SmallRye looks a value up by the exact name, and a
 * config mapping reads a group's members under one spelling only: a policy written {@code "api".limit} in one place
 * and {@code api.window} in another (or overridden by an environment variable of the other form) would lose one of
 * them. So names are found from the property names, and each attribute is read from the spelling whose source has
 * the highest ordinal, as SmallRye decides between two sources for one name. Used by the build (which checks
 * annotations against the policies) and at start-up alike.
 */
public final class PolicyProperties {

    static final String PREFIX = "quarkus.ratelimit.policies.";
    /**
     * A policy's attributes. An environment variable's name says nothing of where a name ends
     * ({@code QUARKUS_RATELIMIT_POLICIES_PER_USER_LIMIT}): SmallRye may list it as policy {@code per}, attribute
     * {@code user.limit}, which is no attribute and is ignored (the value is still found under {@code per-user}).
     */
    static final Set<String> ATTRIBUTES = Set.of("algorithm", "limit", "window", "burst", "key", "paths", "methods",
            "mode", "on-failure");
    /** What a plan may set: the rest is the policy's. */
    static final Set<String> PLAN_ATTRIBUTES = Set.of("limit", "window", "burst");
    private static final String PLANS = "plans.";

    private final Config config;
    /** Policy name to attribute ({@code limit}, {@code on-failure}...) to the property that sets it. */
    private final Map<String, Map<String, String>> properties = new TreeMap<>();
    /** Policy name to plan name to attribute to the property that sets it. */
    private final Map<String, Map<String, Map<String, String>>> plans = new TreeMap<>();

    public PolicyProperties(Config config) {
        this.config = config;
        for (String property : config.getPropertyNames()) {
            if (!property.startsWith(PREFIX)) {
                continue;
            }
            String rest = property.substring(PREFIX.length());
            int afterName = nameEnd(rest, 0);
            if (afterName < 0) {
                continue;
            }
            String name = unquoted(rest, 0, afterName);
            String attribute = rest.substring(afterName + 1);
            if (ATTRIBUTES.contains(attribute)) {
                properties.computeIfAbsent(name, n -> new TreeMap<>()).merge(attribute, property, this::higherOrdinal);
            } else if (attribute.startsWith(PLANS)) {
                int afterPlan = nameEnd(attribute, PLANS.length());
                if (afterPlan < 0) {
                    continue;
                }
                String planAttribute = attribute.substring(afterPlan + 1);
                if (PLAN_ATTRIBUTES.contains(planAttribute)) {
                    plans.computeIfAbsent(name, n -> new TreeMap<>())
                            .computeIfAbsent(unquoted(attribute, PLANS.length(), afterPlan), p -> new TreeMap<>())
                            .merge(planAttribute, property, this::higherOrdinal);
                }
            }
        }
    }

    /**
     * Where the name starting at {@code from} ends: the index of the dot after it, or -1 when there is no name there
     * followed by a dot. A quoted name ends at its closing quote; a plain one at the next dot.
     */
    private static int nameEnd(String s, int from) {
        if (s.startsWith("\"", from)) {
            int end = s.indexOf('"', from + 1);
            return end < from + 2 || end + 2 > s.length() || s.charAt(end + 1) != '.' ? -1 : end + 1;
        }
        int dot = s.indexOf('.', from);
        return dot <= from ? -1 : dot;
    }

    private static String unquoted(String s, int from, int end) {
        return s.charAt(from) == '"' ? s.substring(from + 1, end - 1) : s.substring(from, end);
    }

    private String higherOrdinal(String a, String b) {
        return config.getConfigValue(b).getSourceOrdinal() > config.getConfigValue(a).getSourceOrdinal() ? b : a;
    }

    /** Every policy name that has at least one property, unquoted. */
    public Set<String> names() {
        return properties.keySet();
    }

    /** An attribute's value, converted, from whichever spelling set it. */
    public <T> Optional<T> value(String policy, String attribute, Class<T> type) {
        String property = property(policy, attribute);
        return property == null ? Optional.empty() : config.getOptionalValue(property, type);
    }

    /** A list attribute's values ({@code paths}, {@code methods}), from whichever spelling set it. */
    public Optional<List<String>> values(String policy, String attribute) {
        String property = property(policy, attribute);
        return property == null ? Optional.empty() : config.getOptionalValues(property, String.class);
    }

    /** The names of a policy's plans that have at least one property, unquoted. */
    public Set<String> planNames(String policy) {
        Map<String, Map<String, String>> named = plans.get(policy);
        return named == null ? Set.of() : named.keySet();
    }

    /** A plan's attribute ({@code limit}, {@code window}, {@code burst}), converted, from whichever spelling set it. */
    public <T> Optional<T> planValue(String policy, String plan, String attribute, Class<T> type) {
        Map<String, Map<String, String>> named = plans.get(policy);
        Map<String, String> attributes = named == null ? null : named.get(plan);
        String property = attributes == null ? null : attributes.get(attribute);
        return property == null ? Optional.empty() : config.getOptionalValue(property, type);
    }

    private String property(String policy, String attribute) {
        Map<String, String> attributes = properties.get(policy);
        return attributes == null ? null : attributes.get(attribute);
    }
}
