package dev.ratelimit.runtime.policy;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code @RateLimit} annotations of every method, collected and validated by the build and
 * recorded at static init, so neither the filter nor the interceptor reads annotations reflectively.
 * Method-level annotations replace class-level ones.
 */
public final class RateLimitedMethods {

    /** Arrays, not lists: read on every limited call, and handing out a copy each time would allocate. */
    private static final Map<String, RateLimitSpec[]> METHODS = new ConcurrentHashMap<>();
    private static final RateLimitSpec[] NONE = new RateLimitSpec[0];

    private RateLimitedMethods() {
    }

    public static void clear() {
        METHODS.clear();
    }

    public static void add(String methodKey, RateLimitSpec spec) {
        // only at static init, so copying on append costs nothing that matters
        METHODS.merge(methodKey, new RateLimitSpec[] { spec }, (old, one) -> {
            RateLimitSpec[] grown = java.util.Arrays.copyOf(old, old.length + 1);
            grown[old.length] = one[0];
            return grown;
        });
    }

    /** Every limited method (by {@link #methodKey}) and its specs, for the start-up checks. */
    public static Map<String, List<RateLimitSpec>> all() {
        Map<String, List<RateLimitSpec>> all = new java.util.HashMap<>();
        METHODS.forEach((k, v) -> all.put(k, List.of(v)));
        return all;
    }

    /** The specs of a method identified by {@link #methodKey}, empty when it is not limited. */
    public static RateLimitSpec[] get(String methodKey) {
        RateLimitSpec[] specs = METHODS.get(methodKey);
        // callers only read the array
        return specs == null ? NONE : specs;
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
