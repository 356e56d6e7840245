package dev.ratelimit.deployment.openapi;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationTarget;
import org.jboss.jandex.ClassInfo;
import org.jboss.jandex.DotName;
import org.jboss.jandex.IndexView;
import org.jboss.jandex.MethodInfo;
import org.jboss.jandex.Type;

/**
 * The limited operations of the Quarkus REST resources, by HTTP method and path template as SmallRye OpenAPI writes
 * them in the document ({@code /api/orders/{id}}: the root path, the REST application path, the class's and the
 * method's {@code @Path}, regular expressions of variables removed).
 * <p>
 * A resource class is one with {@code @Path}, or implementing a JAX-RS interface with {@code @Path}; its resource
 * methods are its own, its superclasses' and its interfaces' methods with an HTTP method annotation. Their limits are
 * looked up as the REST filter looks them up at run time (the resource class, then each superclass, each with its
 * interfaces), so the document names what the filter enforces. Sub-resource locators are not followed.
 */
final class RestOperations {

    private static final DotName PATH = DotName.createSimple("jakarta.ws.rs.Path");
    private static final DotName HTTP_METHOD = DotName.createSimple("jakarta.ws.rs.HttpMethod");
    private static final DotName APPLICATION_PATH = DotName.createSimple("jakarta.ws.rs.ApplicationPath");
    private static final Map<DotName, String> HTTP_METHODS = Map.of(
            DotName.createSimple("jakarta.ws.rs.GET"), "GET", DotName.createSimple("jakarta.ws.rs.POST"), "POST",
            DotName.createSimple("jakarta.ws.rs.PUT"), "PUT", DotName.createSimple("jakarta.ws.rs.DELETE"), "DELETE",
            DotName.createSimple("jakarta.ws.rs.PATCH"), "PATCH", DotName.createSimple("jakarta.ws.rs.HEAD"), "HEAD",
            DotName.createSimple("jakarta.ws.rs.OPTIONS"), "OPTIONS");

    private final IndexView index;
    /** The policies of each limited method, by {@link #key(MethodInfo)}. */
    private final Map<String, List<String>> limited;

    /**
     * @param limited the policy names of each limited method, by the key of {@link #key(MethodInfo)}
     */
    RestOperations(IndexView index, Map<String, List<String>> limited) {
        this.index = index;
        this.limited = limited;
    }

    /** {@code class#name(param types)} of a declared method. */
    static String key(MethodInfo m) {
        StringBuilder sb = new StringBuilder(m.declaringClass().name().toString()).append('#').append(m.name()).append('(');
        for (int i = 0; i < m.parametersCount(); i++) {
            sb.append(i == 0 ? "" : ",").append(m.parameterType(i).name());
        }
        return sb.append(')').toString();
    }

    /**
     * The limited operations, {@code "METHOD path"} to policy names, in a stable order.
     *
     * @param contextRoot the root path and the REST application path, e.g. {@code /} or {@code /app/api}
     */
    Map<String, List<String>> limitedOperations(String contextRoot) {
        Map<String, List<String>> operations = new TreeMap<>();
        resourceClasses().forEach((resource, classPath) -> {
            for (MethodInfo m : resourceMethods(resource)) {
                List<String> policies = policies(resource, m);
                if (policies == null) {
                    continue;
                }
                MethodInfo annotated = jaxRsDeclaration(resource, m);
                String method = httpMethod(annotated);
                AnnotationInstance methodPath = annotated.declaredAnnotation(PATH);
                String path = path(contextRoot, classPath, methodPath == null ? "" : methodPath.value().asString());
                operations.put(method + ' ' + path, policies);
            }
        });
        return operations;
    }

    /** The context root: the root path, then the application path ({@code @ApplicationPath} before the property). */
    String contextRoot(String rootPath, String restPath) {
        String applicationPath = restPath;
        for (AnnotationInstance a : index.getAnnotations(APPLICATION_PATH)) {
            if (a.target().kind() == AnnotationTarget.Kind.CLASS) {
                applicationPath = a.value().asString();
                break;
            }
        }
        return path(rootPath, applicationPath);
    }

    /** Concrete resource classes and their class-level path. */
    private Map<ClassInfo, String> resourceClasses() {
        Map<ClassInfo, String> classes = new LinkedHashMap<>();
        List<ClassInfo> interfaces = new ArrayList<>();
        for (AnnotationInstance a : index.getAnnotations(PATH)) {
            if (a.target().kind() != AnnotationTarget.Kind.CLASS) {
                continue;
            }
            ClassInfo c = a.target().asClass();
            if (c.isInterface()) {
                interfaces.add(c);
            } else if (!Modifier.isAbstract(c.flags())) {
                classes.put(c, a.value().asString());
            }
        }
        for (ClassInfo i : interfaces) {
            String interfacePath = i.declaredAnnotation(PATH).value().asString();
            for (ClassInfo c : index.getAllKnownImplementors(i.name())) {
                if (!c.isInterface() && !Modifier.isAbstract(c.flags())) {
                    classes.putIfAbsent(c, interfacePath);
                }
            }
        }
        return classes;
    }

    /** The public methods of a resource class and its supertypes with an HTTP method, one per signature. */
    private List<MethodInfo> resourceMethods(ClassInfo resource) {
        Map<String, MethodInfo> bySignature = new LinkedHashMap<>();
        for (ClassInfo c : hierarchy(resource)) {
            for (MethodInfo m : c.methods()) {
                if (Modifier.isPublic(m.flags()) && !Modifier.isStatic(m.flags()) && !m.isSynthetic()
                        && !m.isConstructor() && jaxRsDeclaration(resource, m) != null) {
                    bySignature.putIfAbsent(signature(m), m);
                }
            }
        }
        return new ArrayList<>(bySignature.values());
    }

    /** The first declaration of the method in the hierarchy with an HTTP method annotation (JAX-RS inheritance). */
    private MethodInfo jaxRsDeclaration(ClassInfo resource, MethodInfo m) {
        String signature = signature(m);
        for (ClassInfo c : hierarchy(resource)) {
            for (MethodInfo declared : c.methods()) {
                if (signature(declared).equals(signature) && httpMethod(declared) != null) {
                    return declared;
                }
            }
        }
        return null;
    }

    private String httpMethod(MethodInfo m) {
        for (AnnotationInstance a : m.declaredAnnotations()) {
            String known = HTTP_METHODS.get(a.name());
            if (known != null) {
                return known;
            }
            ClassInfo annotation = index.getClassByName(a.name());
            if (annotation != null && annotation.hasDeclaredAnnotation(HTTP_METHOD)) {
                return annotation.declaredAnnotation(HTTP_METHOD).value().asString();
            }
        }
        return null;
    }

    /**
     * The policies of a resource method as the filter finds them: under the resource class, then under each
     * superclass, each followed by its interfaces; null when it has none.
     */
    private List<String> policies(ClassInfo resource, MethodInfo m) {
        String signature = signature(m);
        for (ClassInfo c = resource; c != null && !c.name().equals(DotName.OBJECT_NAME); c = superclass(c)) {
            List<String> found = declaredIn(c, signature);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private List<String> declaredIn(ClassInfo type, String signature) {
        for (MethodInfo declared : type.methods()) {
            if (signature(declared).equals(signature)) {
                List<String> policies = limited.get(key(declared));
                if (policies != null) {
                    return policies;
                }
            }
        }
        for (DotName i : type.interfaceNames()) {
            ClassInfo info = index.getClassByName(i);
            if (info != null) {
                List<String> found = declaredIn(info, signature);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    /** The class, its superclasses, then every interface of them (breadth first). */
    private List<ClassInfo> hierarchy(ClassInfo resource) {
        List<ClassInfo> classes = new ArrayList<>();
        for (ClassInfo c = resource; c != null && !c.name().equals(DotName.OBJECT_NAME); c = superclass(c)) {
            classes.add(c);
        }
        List<ClassInfo> all = new ArrayList<>(classes);
        for (int i = 0; i < all.size(); i++) {
            for (DotName name : all.get(i).interfaceNames()) {
                ClassInfo info = index.getClassByName(name);
                if (info != null && !all.contains(info)) {
                    all.add(info);
                }
            }
        }
        return all;
    }

    private ClassInfo superclass(ClassInfo c) {
        return c.superName() == null ? null : index.getClassByName(c.superName());
    }

    private static String signature(MethodInfo m) {
        StringBuilder sb = new StringBuilder(m.name()).append('(');
        for (Type t : m.parameterTypes()) {
            sb.append(t.name()).append(',');
        }
        return sb.append(')').toString();
    }

    /**
     * Joins path segments as the document spells them: one slash between segments, none at the end (but for the root
     * itself), template variables without their regular expression.
     */
    static String path(String... segments) {
        StringBuilder sb = new StringBuilder();
        for (String segment : segments) {
            sb.append('/').append(withoutRegex(segment));
        }
        String joined = sb.toString().replaceAll("/{2,}", "/");
        if (joined.length() > 1 && joined.endsWith("/")) {
            joined = joined.substring(0, joined.length() - 1);
        }
        return joined;
    }

    /** {@code {id: [0-9]{1,3}}} becomes {@code {id}}. */
    private static String withoutRegex(String segment) {
        if (segment.indexOf('{') < 0) {
            return segment;
        }
        StringBuilder out = new StringBuilder(segment.length());
        int depth = 0;
        boolean inRegex = false;
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '{') {
                if (depth++ == 0) {
                    inRegex = false;
                    out.append(c);
                    continue;
                }
            } else if (c == '}') {
                if (--depth == 0) {
                    out.append(c);
                    continue;
                }
            } else if (c == ':' && depth == 1) {
                inRegex = true;
                continue;
            }
            if (depth == 0 || !inRegex) {
                if (depth == 1 && Character.isWhitespace(c)) {
                    continue;
                }
                out.append(c);
            }
        }
        return out.toString();
    }
}
