package dev.ratelimit;

import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Documented;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;

/**
 * Limits calls to the annotated method (or to every business method of the annotated class) by the
 * policy named {@link #value()}, configured under {@code quarkus.ratelimit.policies."<name>".*}.
 * <p>
 * Repeat the annotation to apply several policies; they are decided together and all-or-nothing:
 * when one denies, none of them is charged. On a JAX-RS resource method the decision is taken before
 * the method runs (and before the request body is read) and a denial answers {@code 429 Too Many
 * Requests}; on any other CDI bean a denial throws (or fails the returned {@code Uni} or
 * {@code CompletionStage} with) {@link RateLimitExceededException}.
 */
@InterceptorBinding
@Repeatable(RateLimit.List.class)
@Retention(RUNTIME)
@Target({ METHOD, TYPE })
@Documented
public @interface RateLimit {

    /**
     * The name of the policy, as in {@code quarkus.ratelimit.policies."<name>".limit}.
     */
    @Nonbinding
    String value();

    /**
     * How many units one call consumes. Must be positive and at most the policy's burst (or limit).
     */
    @Nonbinding
    int cost() default 1;

    /**
     * Overrides the policy's key source for this method only ({@code ip}, {@code principal},
     * {@code header:<Name>}, {@code global} or the name of a {@link KeyResolver} bean). Empty means
     * the policy's {@code key}.
     */
    @Nonbinding
    String key() default "";

    /**
     * The call settles its actual cost: {@link #cost()} is reserved before the method runs, and the method tells what
     * the call really cost through the injectable {@link RateLimitSettlement} (what it does not use is given back,
     * what it used beyond is charged, see {@link Reservation}); a call that never says keeps the estimate. For JAX-RS
     * resource methods and for methods that return a plain value; on a bean method returning a {@code Uni},
     * {@code CompletionStage}, {@code Multi} or a suspend function it fails the build (reserve with
     * {@link RateLimiter#reserve} there).
     */
    @Nonbinding
    boolean settle() default false;

    /**
     * Holds repeated {@link RateLimit} annotations.
     */
    @InterceptorBinding
    @Retention(RUNTIME)
    @Target({ METHOD, TYPE })
    @Documented
    @interface List {
        /**
         * The repeated annotations.
         */
        @Nonbinding
        RateLimit[] value();
    }
}
