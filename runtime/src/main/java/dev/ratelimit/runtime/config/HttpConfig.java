package dev.ratelimit.runtime.config;

import java.util.List;

import io.smallrye.config.WithDefault;

/**
 * HTTP responses and keys.
 */
public interface HttpConfig {
    /**
     * Which rate-limit header families responses carry: `ietf` (`RateLimit-Policy` and
     * `RateLimit` of draft-ietf-httpapi-ratelimit-headers), `legacy` (`X-RateLimit-Limit`,
     * `-Remaining`, `-Reset`), or `none`. `Retry-After` is always sent on a 429.
     */
    @WithDefault("ietf,legacy")
    List<HeaderFamily> headers();

    /**
     * What a `header:Name` policy does when the request lacks the header: `ip` counts it
     * against the client address, `deny` answers 429.
     */
    @WithDefault("ip")
    MissingHeader missingHeader();

    /**
     * IPv6 clients are grouped by this prefix length (a client usually controls a whole /64),
     * so one client cannot escape its limit by rotating addresses. IPv4 addresses are used
     * whole.
     */
    @WithDefault("64")
    int ipv6PrefixLength();

    /**
     * Adds the `pk` parameter of draft-ietf-httpapi-ratelimit-headers to each `RateLimit` member: a partition key
     * naming the quota the request was counted against without showing it (the first 9 bytes of the SHA-256 of
     * the identity, as a byte sequence, e.g. `pk=:3q2+7wAbCdEf:`), so that a client can tell the quotas it shares
     * from its own. Off by default.
     */
    @WithDefault("false")
    boolean partitionKey();

    /**
     * Rate-limit header families.
     */
    enum HeaderFamily {
        /** {@code RateLimit-Policy} and {@code RateLimit}, as draft-ietf-httpapi-ratelimit-headers defines them. */
        IETF,
        /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset}. */
        LEGACY,
        /** No rate-limit headers ({@code Retry-After} is still sent on a 429). */
        NONE
    }

    /**
     * What a {@code header:Name} key does when the request lacks the header.
     */
    enum MissingHeader {
        /** Counts the request against the client address. */
        IP,
        /** Answers 429. */
        DENY
    }
}
