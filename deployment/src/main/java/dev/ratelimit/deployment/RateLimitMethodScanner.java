package dev.ratelimit.deployment;

import static dev.ratelimit.deployment.RateLimitAnnotations.RATE_LIMIT;
import static dev.ratelimit.deployment.RateLimitAnnotations.RATE_LIMIT_LIST;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationTarget;
import org.jboss.jandex.AnnotationValue;
import org.jboss.jandex.ClassInfo;
import org.jboss.jandex.IndexView;
import org.jboss.jandex.MethodInfo;
import org.jboss.jandex.Type;

import dev.ratelimit.runtime.policy.RateLimitedMethods;

/**
 * Finds every {@code @RateLimit} in the index and resolves it to methods: a method's own
 * annotations replace its class's.
 */
final class RateLimitMethodScanner {

    private RateLimitMethodScanner() {
    }

    /** Methods with their specs, in a stable order. Private and static methods are included (to be reported). */
    static Map<MethodInfo, List<RateLimitedMethodBuildItem.Spec>> scan(IndexView index) {
        Map<MethodInfo, List<RateLimitedMethodBuildItem.Spec>> methods = new LinkedHashMap<>();
        List<ClassInfo> annotatedClasses = new ArrayList<>();
        for (AnnotationInstance a : annotations(index)) {
            if (a.target().kind() == AnnotationTarget.Kind.METHOD) {
                MethodInfo m = a.target().asMethod();
                if (m.isSynthetic() && Modifier.isStatic(m.flags())) {
                    // Kotlin copies the annotations of an open suspend function onto the static m$suspendImpl that
                    // holds its body; the function itself is the one intercepted
                    continue;
                }
                methods.computeIfAbsent(m, k -> new ArrayList<>()).addAll(specs(a));
            } else if (a.target().kind() == AnnotationTarget.Kind.CLASS && !annotatedClasses.contains(a.target().asClass())) {
                annotatedClasses.add(a.target().asClass());
            }
        }
        for (ClassInfo c : annotatedClasses) {
            List<RateLimitedMethodBuildItem.Spec> classSpecs = new ArrayList<>();
            AnnotationInstance single = c.declaredAnnotation(RATE_LIMIT);
            AnnotationInstance list = c.declaredAnnotation(RATE_LIMIT_LIST);
            if (single != null) {
                classSpecs.addAll(specs(single));
            }
            if (list != null) {
                classSpecs.addAll(specs(list));
            }
            for (MethodInfo m : c.methods()) {
                // interceptors apply to business methods only
                if (m.isConstructor() || m.isStaticInitializer() || m.isSynthetic() || Modifier.isStatic(m.flags())
                        || Modifier.isPrivate(m.flags()) || methods.containsKey(m)) {
                    continue;
                }
                methods.put(m, classSpecs);
            }
        }
        Map<MethodInfo, List<RateLimitedMethodBuildItem.Spec>> sorted = new LinkedHashMap<>();
        methods.keySet().stream().sorted(Comparator.comparing(RateLimitMethodScanner::methodKey))
                .forEach(m -> sorted.put(m, methods.get(m)));
        return sorted;
    }

    private static List<AnnotationInstance> annotations(IndexView index) {
        List<AnnotationInstance> all = new ArrayList<>(index.getAnnotations(RATE_LIMIT));
        all.addAll(index.getAnnotations(RATE_LIMIT_LIST));
        return all;
    }

    private static List<RateLimitedMethodBuildItem.Spec> specs(AnnotationInstance a) {
        List<RateLimitedMethodBuildItem.Spec> out = new ArrayList<>();
        if (a.name().equals(RATE_LIMIT_LIST)) {
            for (AnnotationInstance nested : a.value().asNestedArray()) {
                out.add(spec(nested));
            }
        } else {
            out.add(spec(a));
        }
        return out;
    }

    private static RateLimitedMethodBuildItem.Spec spec(AnnotationInstance a) {
        AnnotationValue cost = a.value("cost");
        AnnotationValue key = a.value("key");
        AnnotationValue settle = a.value("settle");
        return new RateLimitedMethodBuildItem.Spec(a.value().asString(), cost == null ? 1 : cost.asInt(),
                key == null ? "" : key.asString(), settle != null && settle.asBoolean());
    }

    /** The key the runtime computes from reflection for the same method. */
    static String methodKey(MethodInfo m) {
        String[] params = new String[m.parametersCount()];
        for (int i = 0; i < params.length; i++) {
            params[i] = typeName(m.parameterType(i));
        }
        return RateLimitedMethods.methodKey(m.declaringClass().name().toString(), m.name(), params);
    }

    private static String typeName(Type t) {
        switch (t.kind()) {
            case ARRAY:
                // Class.getName() spelling of arrays: [I, [Ljava.lang.String;
                return "[" + descriptorName(t.asArrayType().elementType(), t.asArrayType().deepDimensions());
            default:
                return t.name().toString();
        }
    }

    private static String descriptorName(Type component, int dims) {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i < dims; i++) {
            sb.append('[');
        }
        if (component.kind() == Type.Kind.PRIMITIVE) {
            switch (component.asPrimitiveType().primitive()) {
                case BOOLEAN -> sb.append('Z');
                case BYTE -> sb.append('B');
                case CHAR -> sb.append('C');
                case SHORT -> sb.append('S');
                case INT -> sb.append('I');
                case LONG -> sb.append('J');
                case FLOAT -> sb.append('F');
                case DOUBLE -> sb.append('D');
            }
        } else {
            sb.append('L').append(component.name().toString()).append(';');
        }
        return sb.toString();
    }
}
