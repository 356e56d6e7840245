package dev.ratelimit;

/**
 * The identities HTTP requests are counted under, for the {@link RateLimiter} methods that name a key ({@code state},
 * {@code reset}, {@code setOverride}...). A policy's {@code key} source gives each request an identity that carries
 * its kind, so that an API key's value never names a user's or an address's budget: a policy keyed by
 * {@code header:X-Customer} counts the request of customer {@code acme} under {@code hdr=acme}, which
 * {@link #header(String)} spells. A key passed to {@code check} is used as given.
 *
 * <pre>
 * limiter.setOverrideBlocking("api", RateLimitKeys.header("acme"), RateLimitOverride.ofLimit(10_000));
 * limiter.resetBlocking("api", RateLimitKeys.user("alice"));
 * </pre>
 */
public final class RateLimitKeys {

    private RateLimitKeys() {
    }

    /** The identity of a request whose {@code header:<Name>} key header has {@code value}. */
    public static String header(String value) {
        return "hdr=" + value;
    }

    /** The identity of a request by the authenticated user {@code name} ({@code key=principal}). */
    public static String user(String name) {
        return "user=" + name;
    }

    /** The identity of a request for which the application's {@code KeyResolver} bean {@code name} returned it. */
    public static String resolved(String resolver, String value) {
        return "key." + resolver + "=" + value;
    }
}
