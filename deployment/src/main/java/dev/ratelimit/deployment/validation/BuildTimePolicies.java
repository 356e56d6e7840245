package dev.ratelimit.deployment.validation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.eclipse.microprofile.config.Config;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.config.ConfiguredPolicies;
import dev.ratelimit.runtime.config.PolicyConfig;
import dev.ratelimit.runtime.config.PolicyNameSpellings.PolicyProperty;
import dev.ratelimit.runtime.config.PolicyProblem;
import dev.ratelimit.runtime.config.RateLimitRuntimeConfig;
import dev.ratelimit.runtime.policy.LimitValues;
import dev.ratelimit.runtime.policy.PolicyValidator;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.ConfigValidationException;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/**
 * The policies and their plans as the build sees them: the run-time mapping ({@link RateLimitRuntimeConfig}) filled
 * from the configuration the build has. Policy names must be known at build time (annotations are checked against
 * them) and the values given then are checked then (the contract: an invalid algorithm or limit fails the build);
 * they may still change at start-up, where {@code StartupChecks} checks the values that count with the same rules.
 * <p>
 * Quarkus creates run-time mappings at run time only, so the build maps a copy of the {@code quarkus.ratelimit}
 * properties itself (as the build's configuration resolves them: profile, expressions and both spellings of a name
 * already applied). A value the mapping cannot convert (an unknown algorithm, {@code limit=abc}) fails the whole
 * mapping; it is reported, left out, and the rest mapped again, so that every problem is still reported at once.
 */
public final class BuildTimePolicies {

    private static final String ROOT = "quarkus.ratelimit.";

    private final RateLimitRuntimeConfig config;
    private final Set<String> names;
    /** Values that did not convert, each a problem of its policy. */
    private final List<PolicyProblem> unconverted;
    /** The policies with a value that did not convert: their capacity is unknown. */
    private final Set<String> unreadable = new HashSet<>();

    private BuildTimePolicies(RateLimitRuntimeConfig config, List<PolicyProblem> unconverted) {
        this.config = config;
        this.names = Collections.unmodifiableSet(new TreeSet<>(config.policies().keySet()));
        this.unconverted = unconverted;
        unconverted.forEach(p -> unreadable.add(p.policy()));
    }

    /** The policies of the build's configuration. */
    public static BuildTimePolicies read(Config buildConfig) {
        Map<String, String> values = new TreeMap<>();
        for (String name : buildConfig.getPropertyNames()) {
            if (name.startsWith(ROOT)) {
                buildConfig.getOptionalValue(name, String.class).ifPresent(v -> values.put(name, v));
            }
        }
        List<PolicyProblem> unconverted = new ArrayList<>();
        while (true) {
            try {
                return new BuildTimePolicies(map(values), unconverted);
            } catch (ConfigValidationException e) {
                int before = values.size();
                for (int i = 0; i < e.getProblemCount(); i++) {
                    String message = e.getProblem(i).getMessage();
                    String property = namedIn(message, values.keySet());
                    if (property != null) {
                        values.remove(property);
                        PolicyProperty p = PolicyProperty.parse(property);
                        if (p != null) {
                            unconverted.add(new PolicyProblem(PolicyProblem.Kind.VALUE, p.policy(), p.plan(),
                                    (p.plan() == null ? "Policy '" + p.policy() + "': "
                                            : "Plan '" + p.plan() + "' of policy '" + p.policy() + "': ") + message));
                        } // another setting's: the start reports it
                    }
                }
                if (values.size() == before) {
                    throw e; // not a value's problem
                }
            }
        }
    }

    private static RateLimitRuntimeConfig map(Map<String, String> values) {
        SmallRyeConfig view = new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(values, "the build's configuration", 100))
                // the durations users write (1m, 500ms), as Quarkus reads them
                .withConverter(Duration.class, 200, new DurationConverter())
                .withMapping(RateLimitRuntimeConfig.class)
                // the build-time settings under the same prefix are another mapping's
                .withValidateUnknown(false)
                .build();
        return view.getConfigMapping(RateLimitRuntimeConfig.class);
    }

    /** The longest of the property names that the message names, or null. */
    private static String namedIn(String message, Set<String> properties) {
        String found = null;
        for (String property : properties) {
            if (message.contains(property) && (found == null || property.length() > found.length())) {
                found = property;
            }
        }
        return found;
    }

    /** The names of the policies, unquoted, in order. */
    public Set<String> names() {
        return names;
    }

    /** A policy's values as the build reads them, for display. */
    public PolicyConfig policy(String name) {
        return config.policies().get(name);
    }

    /** The capacity (largest admissible cost) of a policy, if its values are known. */
    public OptionalInt capacity(String policy) {
        PolicyConfig p = config.policies().get(policy);
        return p == null || unreadable.contains(policy) ? OptionalInt.empty()
                : ConfiguredPolicies.values(p).capacity(p.algorithm());
    }

    /** The attribute that sets a policy's capacity: {@code burst} for bucket algorithms with one, else {@code limit}. */
    public String capacityAttribute(String policy) {
        PolicyConfig p = config.policies().get(policy);
        return p == null ? "limit" : ConfiguredPolicies.values(p).capacityAttribute(p.algorithm());
    }

    /**
     * The capacity of each plan of a policy whose values the build knows, with the property that sets it (the plan's
     * own: setting it is how that plan's capacity changes).
     */
    public Map<String, PlanCapacity> planCapacities(String policy) {
        Map<String, PlanCapacity> capacities = new TreeMap<>();
        PolicyConfig p = config.policies().get(policy);
        if (p == null || unreadable.contains(policy)) {
            return capacities;
        }
        Algorithm alg = p.algorithm();
        LimitValues base = ConfiguredPolicies.values(p);
        ConfiguredPolicies.planValues(p).forEach((plan, own) -> {
            LimitValues values = own.orElse(base);
            values.capacity(alg).ifPresent(c -> capacities.put(plan, new PlanCapacity(c,
                    PolicyValidator.planProperty(policy, plan, values.capacityAttribute(alg)))));
        });
        return capacities;
    }

    /** What one plan can ever admit, and the property that sets it. */
    public record PlanCapacity(int units, String property) {
    }

    /** Validates every policy's values, key and paths; each problem becomes one exception. */
    public void validate(List<Throwable> errors) {
        List<PolicyProblem> problems = new ArrayList<>(unconverted);
        ConfiguredPolicies.resolve(config.policies(), config.onFailure(), problems);
        for (PolicyProblem p : problems) {
            String where = " [policy=" + p.policy() + (p.plan() == null ? "" : ", plan=" + p.plan()) + "]";
            errors.add(switch (p.kind()) {
                case VALUE -> new RateLimitValidationException.InvalidPolicyException(p.message() + where);
                case KEY -> new RateLimitValidationException.InvalidKeyException(p.message() + where);
                case PATH -> new RateLimitValidationException.InvalidPathException(p.message() + where);
            });
        }
    }
}
