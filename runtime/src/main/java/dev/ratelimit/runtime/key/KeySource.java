package dev.ratelimit.runtime.key;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;

import dev.ratelimit.KeyResolver;
import dev.ratelimit.RateLimitKeys;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.smallrye.common.annotation.Identifier;
import io.vertx.ext.web.RoutingContext;

/**
 * Where a policy counts a request: the sources a policy's {@code key} names ({@code ip}, {@code principal},
 * {@code global}, {@code header:<Name>}, or the name of a {@code KeyResolver} bean), each with the identity it resolves
 * a request to and what such an identity looks like. The one place a key source is spelled, resolved and described:
 * the filter and the interceptor resolve through it ({@link KeyResolution}), the Dev UI describes with it, the build
 * and the start-up validate with it. A new source is a new record here.
 * <p>
 * Identities carry their kind ({@code ip=}, {@code user=}, {@code hdr=}, {@code key.<name>=}), so a header value can
 * never name the same budget as a client address or a user.
 */
public sealed interface KeySource {

    String IP = "ip";
    String PRINCIPAL = "principal";
    String GLOBAL = "global";
    String HEADER_PREFIX = "header:";
    /** The identity every caller shares, and that client-bound sources count under outside an HTTP request. */
    String GLOBAL_IDENTITY = "global";

    /** How the source is written in configuration. */
    String spelled();

    /**
     * The identity a request counts under; {@code rc} is {@code null} outside an HTTP request, where client-bound
     * sources count against {@link #GLOBAL_IDENTITY}. {@link KeyResolution#DENY} when a required header is missing and
     * the configuration denies.
     */
    String resolve(RoutingContext rc, KeyResolution keys);

    /** What an identity of this source looks like, for people (the Dev UI's hints). */
    String example();

    /**
     * The identity a request whose value for this source is {@code value} counts under (an address for {@code ip}, a
     * header's value, a user name, what a resolver returned), or null when {@code value} cannot be one (not an
     * address, for {@code ip}). A value that already names its kind ({@code ip=...}, {@code hdr=...}) is taken as it
     * is: what an operator copies from a log or the Dev UI.
     */
    default String identityOf(String value, KeyResolution keys) {
        return carriesKind(value) ? value : ownIdentityOf(value, keys);
    }

    /** {@link #identityOf} for a value that does not name its kind. */
    String ownIdentityOf(String value, KeyResolution keys);

    /** Whether {@code identity} names its kind, as every identity a request is counted under does. */
    static boolean carriesKind(String identity) {
        return identity.startsWith("ip=") || identity.startsWith("ip6=") || identity.startsWith("hdr=")
                || identity.startsWith("user=") || identity.startsWith("key.") || identity.equals(GLOBAL_IDENTITY);
    }

    /** The source a well-formed key names (see {@link #validate}). */
    static KeySource parse(String key) {
        switch (key) {
            case IP:
                return Ip.INSTANCE;
            case PRINCIPAL:
                return Principal.INSTANCE;
            case GLOBAL:
                return Global.INSTANCE;
            default:
                return key.startsWith(HEADER_PREFIX) ? new Header(key.substring(HEADER_PREFIX.length()))
                        : new Resolver(key);
        }
    }

    /** A message describing what is wrong with {@code key}, or {@code null} when it is well-formed. */
    static String validate(String key) {
        if (key == null || key.isBlank()) {
            return "use ip, principal, global, header:<Name> or the name of a KeyResolver bean";
        }
        if (key.startsWith(HEADER_PREFIX)) {
            String header = key.substring(HEADER_PREFIX.length());
            if (!header.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
                return "'" + header + "' is not a valid HTTP header name; use header:<Name>, e.g. header:X-Api-Key";
            }
        }
        return null;
    }

    /** The {@link KeyResolver} bean a key names, by {@code @Identifier} or else {@code @Named}, or {@code null}. */
    static KeyResolver resolver(Instance<KeyResolver> all, String name) {
        Instance<KeyResolver> byId = all.select(Identifier.Literal.of(name));
        Instance<KeyResolver> found = byId.isResolvable() ? byId : all.select(NamedLiteral.of(name));
        return found.isResolvable() ? found.get() : null;
    }

    /** The client's address (see {@link ClientAddress}), IPv6 grouped by its prefix. */
    record Ip() implements KeySource {
        static final Ip INSTANCE = new Ip();

        @Override
        public String spelled() {
            return IP;
        }

        @Override
        public String resolve(RoutingContext rc, KeyResolution keys) {
            return keys.ip(rc);
        }

        @Override
        public String ownIdentityOf(String value, KeyResolution keys) {
            return keys.addressIdentity(value);
        }

        @Override
        public String example() {
            return "'ip=127.0.0.1'";
        }
    }

    /** The authenticated user's name; anonymous callers count under their address. */
    record Principal() implements KeySource {
        static final Principal INSTANCE = new Principal();

        @Override
        public String spelled() {
            return PRINCIPAL;
        }

        @Override
        public String resolve(RoutingContext rc, KeyResolution keys) {
            if (rc == null) {
                return GLOBAL_IDENTITY;
            }
            if (rc.user() instanceof QuarkusHttpUser user) {
                SecurityIdentity identity = user.getSecurityIdentity();
                if (identity != null && !identity.isAnonymous()) {
                    return RateLimitKeys.user(identity.getPrincipal().getName());
                }
            }
            return keys.ip(rc);
        }

        @Override
        public String ownIdentityOf(String value, KeyResolution keys) {
            return RateLimitKeys.user(value);
        }

        @Override
        public String example() {
            return "'user=alice' (anonymous callers: 'ip=127.0.0.1')";
        }
    }

    /** One budget shared by every caller. */
    record Global() implements KeySource {
        static final Global INSTANCE = new Global();

        @Override
        public String spelled() {
            return GLOBAL;
        }

        @Override
        public String resolve(RoutingContext rc, KeyResolution keys) {
            return GLOBAL_IDENTITY;
        }

        @Override
        public String ownIdentityOf(String value, KeyResolution keys) {
            return GLOBAL_IDENTITY;
        }

        @Override
        public String example() {
            return "'global'";
        }
    }

    /**
     * A request header's value; without it, the client's address, or a denial with
     * {@code quarkus.ratelimit.http.missing-header=deny}.
     */
    record Header(String name) implements KeySource {
        @Override
        public String spelled() {
            return HEADER_PREFIX + name;
        }

        @Override
        public String resolve(RoutingContext rc, KeyResolution keys) {
            if (rc == null) {
                return GLOBAL_IDENTITY;
            }
            String v = rc.request().getHeader(name);
            if (v == null || v.isEmpty()) {
                return keys.denyMissingHeader() ? KeyResolution.DENY : keys.ip(rc);
            }
            return RateLimitKeys.header(v);
        }

        @Override
        public String ownIdentityOf(String value, KeyResolution keys) {
            return RateLimitKeys.header(value);
        }

        @Override
        public String example() {
            return "'hdr=<the " + name + " header's value>'";
        }
    }

    /** What the application's {@link KeyResolver} bean of that name returns; {@code null} from it: the address. */
    record Resolver(String name) implements KeySource {
        @Override
        public String spelled() {
            return name;
        }

        @Override
        public String resolve(RoutingContext rc, KeyResolution keys) {
            KeyResolver resolver = keys.resolver(name);
            if (resolver == null) {
                throw new IllegalStateException("No KeyResolver bean named '" + name + "'");
            }
            String v = rc == null ? null : resolver.resolve(rc.request());
            return v == null ? keys.ip(rc) : RateLimitKeys.resolved(name, v);
        }

        @Override
        public String ownIdentityOf(String value, KeyResolution keys) {
            return RateLimitKeys.resolved(name, value);
        }

        @Override
        public String example() {
            return "'key." + name + "=<what the KeyResolver returned>'";
        }
    }
}
