package dev.ratelimit.runtime.policy;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Finds the limits of a method about to run, for the REST filter (a resource method, known by class, name and
 * parameter types) and for the interceptor (a reflected method), from what the build recorded in
 * {@link RateLimitedMethods}. Each method is looked up once; after that a lookup allocates nothing, whatever the
 * number of requests.
 */
public final class MethodTargets {

    /**
     * A method's key (see {@link RateLimitedMethods#methodKey}), its limits (empty when it has none) and, for each, its
     * policy (its base plan), whether it is a Kotlin {@code suspend} function (compiled with a last parameter of type
     * {@code Continuation}), which the interceptor decides apart, and whether one of its limits is settled by the
     * method ({@code settle = true}): all found once here rather than on every call.
     */
    public record Target(String methodKey, RateLimitSpec[] specs, Policy[] policies, boolean suspendFunction,
            boolean settles) {
    }

    /** By name: Kotlin is an optional dependency. */
    private static final String CONTINUATION = "kotlin.coroutines.Continuation";

    private record Overload(Class<?>[] parameterTypes, Target target) {
    }

    /**
     * Per resource class and method name, the overloads met so far. Not keyed by Quarkus REST's resource info: each
     * request gets a new one, without {@code equals}.
     */
    private final Map<Class<?>, Map<String, Overload[]>> resourceMethods = new ConcurrentHashMap<>();
    /** Per intercepted method; an interceptor instance lives only as long as its bean instance. */
    private final Map<Method, Target> interceptedMethods = new ConcurrentHashMap<>();
    /**
     * The resource methods looked up lately, in {@value #RECENT} slots by name and class: a method found in its slot
     * costs no map lookup (two of them, reading the method's name to compare it, were a tenth of the request filter's
     * CPU under load).
     */
    private final Recent[] recent = new Recent[RECENT];
    private static final int RECENT = 64;
    /** The policy of a name. */
    private final Function<String, Policy> policies;

    /**
     * @param policies the policy of each name an annotation gives (an unknown name fails: the build and the start-up
     *        check them)
     */
    public MethodTargets(Function<String, Policy> policies) {
        this.policies = policies;
    }

    /**
     * A resource method met lately: its class, its name, the parameter types as the caller passed them (compared by
     * identity: Quarkus REST passes the same array for a method) and as kept here (compared by value otherwise).
     */
    private record Recent(Class<?> resourceClass, String name, Class<?>[] passed, Class<?>[] kept, Target target) {
    }

    private Target target(String methodKey, RateLimitSpec[] specs, boolean suspendFunction) {
        Policy[] ps = new Policy[specs.length];
        for (int i = 0; i < specs.length; i++) {
            ps[i] = policies.apply(specs[i].policy());
        }
        return new Target(methodKey, specs, ps, suspendFunction, Arrays.stream(specs).anyMatch(RateLimitSpec::settle));
    }

    /** The limits of a method the interceptor met. */
    public Target intercepted(Method method) {
        return interceptedMethods.computeIfAbsent(method, m -> {
            String key = RateLimitedMethods.methodKey(m);
            Class<?>[] parameters = m.getParameterTypes();
            boolean suspendFunction = parameters.length > 0
                    && parameters[parameters.length - 1].getName().equals(CONTINUATION);
            return target(key, RateLimitedMethods.get(key), suspendFunction);
        });
    }

    /**
     * The limits of a resource method, as the build recorded them under the class that declares the annotated
     * method: the resource class, a superclass, or an interface it implements (a JAX-RS interface).
     */
    public Target resource(Class<?> resourceClass, String name, Class<?>[] parameterTypes) {
        int slot = (name.hashCode() * 31 + resourceClass.hashCode()) & (RECENT - 1);
        Recent r = recent[slot];
        if (r != null && r.resourceClass == resourceClass && r.name.equals(name)
                && (r.passed == parameterTypes || Arrays.equals(r.kept, parameterTypes))) {
            return r.target;
        }
        Target t = lookUp(resourceClass, name, parameterTypes);
        recent[slot] = new Recent(resourceClass, name, parameterTypes, parameterTypes.clone(), t);
        return t;
    }

    private Target lookUp(Class<?> resourceClass, String name, Class<?>[] parameterTypes) {
        Map<String, Overload[]> byName = resourceMethods.computeIfAbsent(resourceClass, c -> new ConcurrentHashMap<>());
        Overload known = overload(byName.get(name), parameterTypes);
        if (known != null) {
            return known.target;
        }
        Overload met = new Overload(parameterTypes.clone(), declared(resourceClass, name, parameterTypes));
        byName.merge(name, new Overload[] { met }, (overloads, added) -> {
            if (overload(overloads, met.parameterTypes) != null) {
                return overloads; // another thread met it first
            }
            Overload[] all = Arrays.copyOf(overloads, overloads.length + 1);
            all[overloads.length] = met;
            return all;
        });
        return met.target;
    }

    /** How many resource methods have been looked up (it must not grow with requests). */
    public int resourceMethods() {
        int n = 0;
        for (Map<String, Overload[]> byName : resourceMethods.values()) {
            for (Overload[] overloads : byName.values()) {
                n += overloads.length;
            }
        }
        return n;
    }

    /** How many intercepted methods have been looked up. */
    public int interceptedMethods() {
        return interceptedMethods.size();
    }

    private static Overload overload(Overload[] overloads, Class<?>[] parameterTypes) {
        if (overloads != null) {
            for (Overload o : overloads) {
                if (Arrays.equals(o.parameterTypes, parameterTypes)) {
                    return o;
                }
            }
        }
        return null;
    }

    /** Walks the hierarchy by name only, so nothing needs reflection in a native executable. */
    private Target declared(Class<?> resourceClass, String name, Class<?>[] parameterTypes) {
        for (Class<?> c = resourceClass; c != null && c != Object.class; c = c.getSuperclass()) {
            Target t = declaredIn(c, name, parameterTypes);
            if (t != null) {
                return t;
            }
        }
        // not limited: the key the interceptor compares, under the resource class
        return target(RateLimitedMethods.methodKey(resourceClass, name, parameterTypes), new RateLimitSpec[0], false);
    }

    private Target declaredIn(Class<?> type, String name, Class<?>[] parameterTypes) {
        String key = RateLimitedMethods.methodKey(type, name, parameterTypes);
        RateLimitSpec[] specs = RateLimitedMethods.get(key);
        if (specs.length > 0) {
            return target(key, specs, false);
        }
        for (Class<?> i : type.getInterfaces()) {
            Target t = declaredIn(i, name, parameterTypes);
            if (t != null) {
                return t;
            }
        }
        return null;
    }
}
