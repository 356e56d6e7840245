package dev.ratelimit.deployment;

import java.util.List;

import org.jboss.jandex.DotName;
import org.jboss.jandex.MethodInfo;
import org.jboss.jandex.Type;

import io.quarkus.builder.item.MultiBuildItem;

/**
 * A method limited by {@code @RateLimit} (on itself or, failing that, on its class), with its
 * annotations in declaration order.
 */
public final class RateLimitedMethodBuildItem extends MultiBuildItem {

    /** By name: Kotlin is an optional dependency. */
    private static final DotName CONTINUATION = DotName.createSimple("kotlin.coroutines.Continuation");

    private final MethodInfo method;
    private final List<Spec> specs;

    public RateLimitedMethodBuildItem(MethodInfo method, List<Spec> specs) {
        this.method = method;
        this.specs = specs;
    }

    /** The method. */
    public MethodInfo method() {
        return method;
    }

    /** Its annotations' values. */
    public List<Spec> specs() {
        return specs;
    }

    /** Whether it is a Kotlin {@code suspend} function: compiled with a last parameter of type {@code Continuation}. */
    public boolean suspendFunction() {
        List<Type> params = method.parameterTypes();
        return !params.isEmpty() && params.get(params.size() - 1).name().equals(CONTINUATION);
    }

    /**
     * One annotation's values.
     *
     * @param policy the policy name
     * @param cost the cost
     * @param key the key override, empty for none
     * @param settle whether the call settles its actual cost
     */
    public record Spec(String policy, int cost, String key, boolean settle) {
    }
}
