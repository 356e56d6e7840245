package dev.ratelimit.runtime.config;

import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;

import jakarta.annotation.Priority;

import io.smallrye.config.ConfigSourceInterceptor;
import io.smallrye.config.ConfigSourceInterceptorContext;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.Priorities;

/**
 * Makes the quoted and the plain spelling of a policy or plan name one property, as the contract promises
 * ({@code policies."api".limit} and {@code policies.api.limit}; {@code policies.api.plans."gold".limit} and
 * {@code policies.api.plans.gold.limit}), so that the configuration mapping is the one reader of the policies.
 * <p>
 * SmallRye Config cannot do this alone (checked on 3.16, the version Quarkus 3.34 ships, and on its main branch): it
 * looks a value up by its exact name, and it fills a {@code Map<String, Group>} entry from the spelling of the first
 * property it lists for that key, reading every member of the group under that spelling only. A policy written
 * {@code "api".limit} in one place and {@code api.window} in another, or overridden by an environment variable
 * (listed quoted: {@code QUARKUS_RATELIMIT_POLICIES__API__LIMIT}), would lose the values of the other spelling; its
 * documentation asks for one spelling per key. So this interceptor lists every policy and plan property under one
 * spelling ({@link PolicyProperty#canonical()}: plain where the name allows it) and answers a look-up of either
 * spelling with the one set in the source of highest ordinal, as SmallRye chooses between two sources for one name.
 * <p>
 * It sits outside the profile interceptor ({@code LIBRARY + 200}), so the active profile's {@code %prod.} properties
 * are already listed without their prefix and found under both spellings. Quarkus finds it as a service, at build
 * time and at run time alike.
 */
@Priority(Priorities.LIBRARY + 210)
public final class PolicyNameSpellings implements ConfigSourceInterceptor {

    private static final long serialVersionUID = 1L;

    static final String PREFIX = "quarkus.ratelimit.policies.";
    private static final String PLANS = "plans.";

    @Override
    public ConfigValue getValue(ConfigSourceInterceptorContext context, String name) {
        PolicyProperty property = name.startsWith(PREFIX) ? PolicyProperty.parse(name) : null;
        if (property == null) {
            return context.proceed(name);
        }
        ConfigValue found = context.proceed(name);
        for (String spelling : property.spellings()) {
            if (!spelling.equals(name)) {
                ConfigValue other = context.proceed(spelling);
                if (other != null && (found == null || other.getConfigSourceOrdinal() > found.getConfigSourceOrdinal())) {
                    found = other;
                }
            }
        }
        return found;
    }

    @Override
    public Iterator<String> iterateNames(ConfigSourceInterceptorContext context) {
        Set<String> names = new LinkedHashSet<>();
        Iterator<String> all = context.iterateNames();
        while (all.hasNext()) {
            String name = all.next();
            PolicyProperty property = name.startsWith(PREFIX) ? PolicyProperty.parse(name) : null;
            names.add(property == null ? name : property.canonical());
        }
        return names.iterator();
    }

    /**
     * A property of a policy or of one of its plans, by the names in it (unquoted).
     *
     * @param policy the policy's name
     * @param plan the plan's name, or null for a property of the policy itself
     * @param attribute what follows the name ({@code limit}, {@code on-failure}...)
     */
    public record PolicyProperty(String policy, String plan, String attribute) {

        /** The property {@code name} sets, or null when it is no policy property ({@code policies.x} alone). */
        public static PolicyProperty parse(String name) {
            if (!name.startsWith(PREFIX)) {
                return null;
            }
            int afterPolicy = nameEnd(name, PREFIX.length());
            if (afterPolicy < 0) {
                return null;
            }
            String policy = unquoted(name, PREFIX.length(), afterPolicy);
            int attribute = afterPolicy + 1;
            if (name.startsWith(PLANS, attribute)) {
                int afterPlan = nameEnd(name, attribute + PLANS.length());
                if (afterPlan > 0) {
                    return new PolicyProperty(policy, unquoted(name, attribute + PLANS.length(), afterPlan),
                            name.substring(afterPlan + 1));
                }
            }
            return new PolicyProperty(policy, null, name.substring(attribute));
        }

        /** The spelling the mapping reads: each name plain when it can be written so unambiguously, else quoted. */
        public String canonical() {
            return spelled(plain(policy), plain(plan));
        }

        /** Every spelling of this property: a name that can be plain, quoted or not. */
        Set<String> spellings() {
            Set<String> spellings = new LinkedHashSet<>();
            for (boolean plainPolicy : plainOrQuoted(policy)) {
                for (boolean plainPlan : plan == null ? new boolean[] { true } : plainOrQuoted(plan)) {
                    spellings.add(spelled(plainPolicy, plainPlan));
                }
            }
            return spellings;
        }

        private String spelled(boolean plainPolicy, boolean plainPlan) {
            StringBuilder b = new StringBuilder(PREFIX).append(spelled(policy, plainPolicy)).append('.');
            if (plan != null) {
                b.append(PLANS).append(spelled(plan, plainPlan)).append('.');
            }
            return b.append(attribute).toString();
        }

        private static String spelled(String name, boolean plain) {
            return plain ? name : '"' + name + '"';
        }

        /** Whether a name is written plain in the listing (as in error messages: see PolicyValidator#property). */
        private static boolean plain(String name) {
            if (name == null) {
                return true;
            }
            for (int i = 0; i < name.length(); i++) {
                char c = name.charAt(i);
                if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_')) {
                    return false;
                }
            }
            return true;
        }

        private static boolean[] plainOrQuoted(String name) {
            return name.indexOf('.') < 0 && name.indexOf('"') < 0 ? new boolean[] { true, false } : new boolean[] { false };
        }

        /**
         * Where the name starting at {@code from} ends: the index of the dot after it, or -1 when no name followed by
         * a dot starts there. A quoted name ends at its closing quote, a plain one at the next dot.
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
    }
}
