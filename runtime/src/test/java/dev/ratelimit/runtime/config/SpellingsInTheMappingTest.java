package dev.ratelimit.runtime.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.config.PolicyNameSpellings.PolicyProperty;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.ConfigValidationException;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/**
 * The mapping reads a policy or plan name's properties in either spelling, the higher ordinal winning, as the contract
 * promises; SmallRye Config alone does not (the reason {@link PolicyNameSpellings} exists: if
 * {@link #smallRyeAloneReadsOneSpellingPerName} ever fails, SmallRye learnt it and the interceptor can go).
 */
class SpellingsInTheMappingTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @Test
    void bothSpellingsOfOneNameAreOnePolicy() {
        PolicyConfig mixed = policies(true, Map.of(P + "mixed.limit", "2", P + "\"mixed\".window", "1m")).get("mixed");
        assertEquals(OptionalInt.of(2), mixed.limit());
        assertEquals(Optional.of(Duration.ofMinutes(1)), mixed.window());
    }

    @Test
    void bothSpellingsOfOnePlanAreOnePlan() {
        PolicyConfig api = policies(true, Map.of(P + "api.limit", "1", P + "api.window", "1h",
                P + "api.plans.\"gold\".limit", "3", P + "\"api\".plans.gold.window", "2h")).get("api");
        assertEquals(OptionalInt.of(3), api.plans().get("gold").limit());
        assertEquals(Optional.of(Duration.ofHours(2)), api.plans().get("gold").window());
        assertEquals(OptionalInt.of(1), api.limit());
    }

    @Test
    void namesWithDotsAreQuoted() {
        Map<String, PolicyConfig> policies = policies(true, Map.of(P + "\"with.dots\".limit", "4",
                P + "\"with.dots\".plans.\"gold.v2\".limit", "5"));
        assertEquals(List.of("with.dots"), List.copyOf(policies.keySet()));
        assertEquals(OptionalInt.of(4), policies.get("with.dots").limit());
        assertEquals(OptionalInt.of(5), policies.get("with.dots").plans().get("gold.v2").limit());
    }

    @Test
    void theSpellingInTheSourceOfHigherOrdinalWins() {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(Map.of(P + "\"x\".limit", "5"), "high", 300))
                .withSources(new PropertiesConfigSource(Map.of(P + "x.limit", "7", P + "x.window", "1s"), "low", 100))
                .withInterceptors(new PolicyNameSpellings())
                .withConverter(Duration.class, 200, new DurationConverter())
                .withMapping(RateLimitRuntimeConfig.class).withValidateUnknown(false).build();
        assertEquals(OptionalInt.of(5), config.getConfigMapping(RateLimitRuntimeConfig.class).policies().get("x").limit());
        assertEquals("5", config.getConfigValue(P + "x.limit").getValue());
        assertEquals("5", config.getConfigValue(P + "\"x\".limit").getValue());
    }

    @Test
    void theActiveProfilesValuesCountInEitherSpelling() {
        SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultInterceptors().withProfile("test")
                .withSources(new PropertiesConfigSource(Map.of("%test." + P + "p.limit", "2", "%prod." + P + "p.limit",
                        "1000", P + "\"p\".window", "1m"), "props", 100))
                .withInterceptors(new PolicyNameSpellings())
                .withConverter(Duration.class, 200, new DurationConverter())
                .withMapping(RateLimitRuntimeConfig.class).withValidateUnknown(false).build();
        PolicyConfig p = config.getConfigMapping(RateLimitRuntimeConfig.class).policies().get("p");
        assertEquals(OptionalInt.of(2), p.limit());
        assertEquals(Optional.of(Duration.ofMinutes(1)), p.window());
    }

    @Test
    void smallRyeAloneReadsOneSpellingPerName() {
        PolicyConfig mixed = policies(false, Map.of(P + "mixed.limit", "2", P + "\"mixed\".window", "1m")).get("mixed");
        assertTrue(mixed.limit().isEmpty() || mixed.window().isEmpty(), "SmallRye now reads both spellings");
    }

    @Test
    void anUnknownAlgorithmNamesThePropertyAndTheAlgorithms() {
        ConfigValidationException e = assertThrows(ConfigValidationException.class,
                () -> policies(true, Map.of(P + "search.algorithm", "leaky-buckets", P + "search.limit", "1")));
        String message = e.getProblem(0).getMessage();
        assertTrue(message.contains(P + "search.algorithm") && message.contains("leaky-buckets"), message);
        for (Algorithm a : Algorithm.values()) {
            assertTrue(message.contains(a.configName()), message);
        }
        // the configuration name only, as the scripts and the documentation spell it
        assertThrows(ConfigValidationException.class, () -> policies(true, Map.of(P + "s.algorithm", "TOKEN_BUCKET")));
        assertEquals(Algorithm.GCRA, policies(true, Map.of(P + "s.algorithm", "gcra")).get("s").algorithm());
    }

    @Test
    void propertyNamesParse() {
        assertEquals(new PolicyProperty("a.b", "gold", "limit"), PolicyProperty.parse(P + "\"a.b\".plans.gold.limit"));
        assertEquals(new PolicyProperty("api", null, "on-failure"), PolicyProperty.parse(P + "api.on-failure"));
        assertEquals(P + "api.plans.gold.limit", PolicyProperty.parse(P + "\"api\".plans.\"gold\".limit").canonical());
        assertEquals(P + "\"a b\".limit", PolicyProperty.parse(P + "a b.limit").canonical());
        assertNull(PolicyProperty.parse(P + "api"));
        assertNull(PolicyProperty.parse("quarkus.ratelimit.key-prefix"));
    }

    private static Map<String, PolicyConfig> policies(boolean withInterceptor, Map<String, String> properties) {
        SmallRyeConfigBuilder builder = new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(properties, "props", 100))
                .withConverter(Duration.class, 200, new DurationConverter())
                .withMapping(RateLimitRuntimeConfig.class).withValidateUnknown(false);
        if (withInterceptor) {
            builder.withInterceptors(new PolicyNameSpellings());
        }
        return builder.build().getConfigMapping(RateLimitRuntimeConfig.class).policies();
    }
}
