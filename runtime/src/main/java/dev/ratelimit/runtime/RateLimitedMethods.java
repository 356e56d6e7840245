package dev.ratelimit.runtime;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code @RateLimit} annotations of every method, collected and validated by the build and
 * recorded at static init, so neither the filter nor the interceptor reads annotations reflectively.
 * Method-level annotations replace class-level ones.
 */
public final class RateLimitedMethods {

    private static final Map<String, List<RateLimitSpec>> METHODS = new ConcurrentHashMap<>();
    private static final RateLimitSpec[] NONE = new RateLimitSpec[0];

    private RateLimitedMethods() {
    }

    static void clear() {
        METHODS.clear();
    }

    static void add(String methodKey, RateLimitSpec spec) {
        METHODS.computeIfAbsent(methodKey, k -> new ArrayList<>()).add(spec);
    }

    /** Every limited method (by {@link #methodKey}) and its specs, for the start-up checks. */
    public static Map<String, List<RateLimitSpec>> all() {
        return Map.copyOf(METHODS);
    }

    /** The specs of a method identified by {@link #methodKey}, empty when it is not limited. */
    public static RateLimitSpec[] get(String methodKey) {
        List<RateLimitSpec> specs = METHODS.get(methodKey);
        return specs == null ? NONE : specs.toArray(NONE);
    }

    /** {@code class#name(param,types)}, with {@link Class#getName()} spelling of every type. */
    public static String methodKey(String className, String methodName, String[] parameterTypes) {
        return className + '#' + methodName + '(' + String.join(",", parameterTypes) + ')';
    }

    /** The key of a reflected method. */
    public static String methodKey(Class<?> declaringClass, String name, Class<?>[] parameterTypes) {
        String[] names = new String[parameterTypes.length];
        for (int i = 0; i < names.length; i++) {
            names[i] = parameterTypes[i].getName();
        }
        return methodKey(declaringClass.getName(), name, names);
    }

    /** The key of a reflected method. */
    public static String methodKey(Method m) {
        return methodKey(m.getDeclaringClass(), m.getName(), m.getParameterTypes());
    }
}
