package dev.ratelimit.runtime.config;

import org.eclipse.microprofile.config.spi.Converter;

import dev.ratelimit.runtime.algorithm.Algorithm;

/**
 * Reads a policy's {@code algorithm} by its configuration name only ({@code token-bucket}, not {@code TOKEN_BUCKET}):
 * the name is also the script's, and one spelling keeps the documentation, the Dev UI and the scripts in step.
 * SmallRye Config puts the property and its value before this message, so the whole error says what to fix.
 */
public final class AlgorithmConverter implements Converter<Algorithm> {

    private static final long serialVersionUID = 1L;

    @Override
    public Algorithm convert(String value) {
        Algorithm algorithm = Algorithm.fromConfigName(value);
        if (algorithm == null) {
            throw new IllegalArgumentException("Unknown algorithm '" + value + "': use one of " + Algorithm.names());
        }
        return algorithm;
    }
}
