package dev.ratelimit.runtime.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.policy.Policy;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;

/**
 * A decision as HTTP: the rate-limit header families chosen by {@code quarkus.ratelimit.http.headers} (the IETF
 * {@code RateLimit-Policy} and {@code RateLimit} fields, the legacy {@code X-RateLimit-*} three) and the
 * problem-detail body of a denial.
 */
public final class RateLimitHeaders {

    private final boolean ietf;
    private final boolean legacy;
    private final boolean partitionKey;

    RateLimitHeaders(boolean ietf, boolean legacy, boolean partitionKey) {
        this.ietf = ietf;
        this.legacy = legacy;
        this.partitionKey = partitionKey;
        this.names = ietf && legacy ? new HeaderName[] { RATELIMIT_POLICY, RATELIMIT, X_LIMIT, X_REMAINING, X_RESET }
                : ietf ? new HeaderName[] { RATELIMIT_POLICY, RATELIMIT }
                        : legacy ? new HeaderName[] { X_LIMIT, X_REMAINING, X_RESET } : new HeaderName[0];
    }

    /** Whether the {@code RateLimit} members carry {@code pk} ({@code quarkus.ratelimit.http.partition-key}). */
    public boolean partitionKeys() {
        return partitionKey;
    }

    /**
     * The {@code pk} parameter for an identity: the first 9 bytes of its SHA-256 as a structured-field byte sequence
     * (base64 between colons; 9 bytes: 12 characters, no padding).
     */
    static String partitionKey(String identity) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(identity.getBytes(StandardCharsets.UTF_8));
            return ":" + Base64.getEncoder().encodeToString(Arrays.copyOf(d, 9)) + ":";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }

    /** A response header's name, as a string and in the pre-hashed form Vert.x adds without hashing it again. */
    public record HeaderName(String text, CharSequence optimized) {
        static HeaderName of(String name) {
            return new HeaderName(name, HttpHeaders.createOptimized(name));
        }
    }

    static final HeaderName RATELIMIT_POLICY = HeaderName.of("RateLimit-Policy");
    static final HeaderName RATELIMIT = HeaderName.of("RateLimit");
    static final HeaderName X_LIMIT = HeaderName.of("X-RateLimit-Limit");
    static final HeaderName X_REMAINING = HeaderName.of("X-RateLimit-Remaining");
    static final HeaderName X_RESET = HeaderName.of("X-RateLimit-Reset");

    /** The names of the headers this configuration sends (Retry-After excluded). */
    private final HeaderName[] names;

    /** The names of the headers {@link #write} sends, as configured. */
    public HeaderName[] names() {
        return names;
    }

    /**
     * Sets the rate-limit headers of this decision on a Vert.x response's headers, replacing any of those names
     * already there (a decision made later in the request, the interceptor's denial, replaces the filter's); with
     * {@code identities}, see {@link #write}. The names are pre-hashed:
     * Quarkus REST would copy each header of its own map there, hashing the name character by character.
     */
    public void set(MultiMap out, RateLimitDecision d, String[] identities) {
        write(d, identities, (name, value) -> out.set(name.optimized(), value));
    }

    /**
     * Hands each rate-limit header of this decision to {@code out}, in order: the IETF pair and/or the legacy three,
     * as configured (Retry-After excluded: it belongs to the 429 only), each {@code RateLimit} member with the
     * {@code pk} of {@code identities[i]}, the identity policy {@code i} counted the request under (null: no
     * {@code pk}).
     */
    private void write(RateLimitDecision d, String[] identities, BiConsumer<HeaderName, String> out) {
        List<PolicyDecision> policies = d.policies();
        if (ietf) {
            if (policies.size() == 1 && identities == null) {
                // the common case: the policy's field as rendered before, one builder for its state
                PolicyDecision p = policies.get(0);
                Rendered r = rendered(p);
                out.accept(RATELIMIT_POLICY, r.policyField);
                out.accept(RATELIMIT, state(new StringBuilder(r.quotedName.length() + 24), r, p).toString());
            } else {
                StringBuilder policy = new StringBuilder();
                StringBuilder state = new StringBuilder();
                for (int i = 0; i < policies.size(); i++) {
                    PolicyDecision p = policies.get(i);
                    if (i > 0) {
                        policy.append(", ");
                        state.append(", ");
                    }
                    Rendered r = rendered(p);
                    policy.append(r.policyField);
                    state(state, r, p);
                    if (identities != null && i < identities.length && identities[i] != null) {
                        state.append(";pk=").append(partitionKey(identities[i]));
                    }
                }
                out.accept(RATELIMIT_POLICY, policy.toString());
                out.accept(RATELIMIT, state.toString());
            }
        }
        if (legacy) {
            PolicyDecision b = mostRestrictive(d);
            out.accept(X_LIMIT, rendered(b).limit);
            out.accept(X_REMAINING, Long.toString(b.remaining()));
            out.accept(X_RESET, Long.toString(d.allowed() ? b.resetSeconds() : d.retryAfterSeconds()));
        }
    }

    private static StringBuilder state(StringBuilder sb, Rendered r, PolicyDecision p) {
        return sb.append(r.quotedName).append(";r=").append(p.remaining()).append(";t=").append(p.resetSeconds());
    }

    /**
     * What a policy's headers repeat on every response, rendered once per policy rather than per response: its quoted
     * name, its {@code RateLimit-Policy} field and its limit. Checked against each decision's limit and window, which
     * a plan may change, and rendered again when they differ.
     */
    private record Rendered(String name, long limitValue, long windowSeconds, String quotedName, String policyField,
            String limit) {

        static Rendered of(PolicyDecision p) {
            String quoted = quoted(p.policy());
            return new Rendered(p.policy(), p.limit(), p.windowSeconds(), quoted,
                    quoted + ";q=" + p.limit() + ";w=" + p.windowSeconds(), Long.toString(p.limit()));
        }

        boolean renders(PolicyDecision p) {
            return limitValue == p.limit() && windowSeconds == p.windowSeconds();
        }
    }

    private final Map<String, Rendered> rendered = new ConcurrentHashMap<>();

    private Rendered rendered(PolicyDecision p) {
        Rendered r = rendered.get(p.policy());
        if (r == null || !r.renders(p)) {
            r = Rendered.of(p);
            if (rendered.size() < MAX_RENDERED) { // policy names are configured, but a programmatic check may name any
                rendered.put(p.policy(), r);
            }
        }
        return r;
    }

    /** Bounds the cache of rendered policies (there are as many as configured policies). */
    private static final int MAX_RENDERED = 1024;

    private static PolicyDecision mostRestrictive(RateLimitDecision d) {
        PolicyDecision best = null;
        for (PolicyDecision p : d.policies()) {
            if (best == null || p.remaining() < best.remaining()) {
                best = p;
            }
        }
        return best;
    }

    /** An RFC 8941 string: policy names may hold any character, so escape and drop what cannot be sent. */
    static String quoted(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7f) {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    /** The small JSON problem-detail body of a denial (429, or 503 for a fail-closed outage). */
    public static String problemBody(RateLimitDecision d, int status) {
        if (d.source() == RateLimitDecision.Source.FAILED_CLOSED) {
            // nothing is known of any quota: the limiter itself is unavailable
            return "{\"type\":\"about:blank\",\"title\":\"" + (status == 503 ? "Service Unavailable" : "Too Many Requests")
                    + "\",\"status\":" + status + ",\"detail\":\"Rate limiting is unavailable\",\"policy\":"
                    + json(d.policy()) + ",\"retryAfter\":" + d.retryAfterSeconds() + "}";
        }
        StringBuilder violated = new StringBuilder();
        for (PolicyDecision p : d.policies()) {
            if (!p.allowed() && !p.shadow()) {
                violated.append(violated.length() == 0 ? "" : ",").append(json(p.policy()));
            }
        }
        return "{\"type\":\"" + QUOTA_EXCEEDED + "\",\"title\":\"Too Many Requests\",\"status\":" + status
                + ",\"detail\":\"Rate limit exceeded\",\"violated-policies\":[" + violated + "],\"policy\":"
                + json(d.policy()) + ",\"retryAfter\":" + d.retryAfterSeconds() + "}";
    }

    /** The problem type draft-ietf-httpapi-ratelimit-headers defines for a request over one or more quotas. */
    public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

    private static String json(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
