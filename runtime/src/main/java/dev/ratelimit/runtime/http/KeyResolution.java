package dev.ratelimit.runtime.http;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.ConfigProvider;

import dev.ratelimit.KeyResolver;
import dev.ratelimit.runtime.RateLimitRuntimeConfig;
import dev.ratelimit.runtime.RateLimitRuntimeConfig.MissingHeader;
import dev.ratelimit.runtime.policy.KeySource;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.VertxHttpConfig;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.vertx.ext.web.RoutingContext;

/**
 * Turns a key source ({@code ip}, {@code principal}, {@code header:<Name>}, {@code global}, a
 * {@link KeyResolver} name) into the identity a request is counted against.
 * <p>
 * Identities carry their kind ({@code ip=}, {@code user=}, {@code hdr=}...), so a header value can
 * never name the same budget as a client address or a user.
 */
@Singleton
public class KeyResolution {

    /** Returned when a {@code header:} key is missing and the configuration says to deny. */
    public static final String DENY = new String("<deny>");

    static final String GLOBAL = "global";

    private final int ipv6PrefixLength;
    private final ClientAddress clientAddress;
    private final boolean denyMissingHeader;
    private final Instance<KeyResolver> resolvers;
    private final Map<String, KeyResolver> resolverCache = new ConcurrentHashMap<>();
    private final PeerIdentities peers = new PeerIdentities();

    KeyResolution(RateLimitRuntimeConfig config, VertxHttpConfig httpConfig, @Any Instance<KeyResolver> resolvers) {
        this.ipv6PrefixLength = Math.max(0, Math.min(128, config.http().ipv6PrefixLength()));
        // the entries as written: Quarkus's parsed form of them cannot be read from outside its package
        List<String> trustedProxies = ConfigProvider.getConfig()
                .getOptionalValues("quarkus.http.proxy.trusted-proxies", String.class).orElse(List.of());
        this.clientAddress = ClientAddress.from(httpConfig.proxy(), trustedProxies);
        this.denyMissingHeader = config.http().missingHeader() == MissingHeader.DENY;
        this.resolvers = resolvers;
    }

    /**
     * The identity for a key source; {@code rc} is {@code null} outside an HTTP request, where
     * client-bound sources ({@code ip}, {@code header:}) count against one global identity.
     * Returns {@link #DENY} when a required header is missing and the configuration denies.
     */
    public String resolve(String source, RoutingContext rc) {
        switch (source) {
            case KeySource.GLOBAL:
                return GLOBAL;
            case KeySource.IP:
                return ip(rc);
            case KeySource.PRINCIPAL:
                return principal(rc);
            default:
                if (source.startsWith(KeySource.HEADER_PREFIX)) {
                    return header(source.substring(KeySource.HEADER_PREFIX.length()), rc);
                }
                return custom(source, rc);
        }
    }

    private String header(String name, RoutingContext rc) {
        if (rc == null) {
            return GLOBAL;
        }
        String v = rc.request().getHeader(name);
        if (v == null || v.isEmpty()) {
            return denyMissingHeader ? DENY : ip(rc);
        }
        return "hdr=" + v;
    }

    private String principal(RoutingContext rc) {
        if (rc == null) {
            return GLOBAL;
        }
        if (rc.user() instanceof QuarkusHttpUser user) {
            SecurityIdentity identity = user.getSecurityIdentity();
            if (identity != null && !identity.isAnonymous()) {
                return "user=" + identity.getPrincipal().getName();
            }
        }
        // anonymous callers are limited by address
        return ip(rc);
    }

    private String custom(String name, RoutingContext rc) {
        KeyResolver resolver = lookup(name);
        if (resolver == null) {
            throw new IllegalStateException("No KeyResolver bean named '" + name + "'");
        }
        String v = rc == null ? null : resolver.resolve(rc.request());
        return v == null ? ip(rc) : "key." + name + "=" + v;
    }

    private KeyResolver lookup(String name) {
        KeyResolver cached = resolverCache.get(name);
        if (cached != null) {
            return cached;
        }
        KeyResolver r = KeySource.resolver(resolvers, name);
        if (r == null) {
            return null;
        }
        resolverCache.put(name, r);
        return r;
    }

    /**
     * The client's address: the peer, or behind trusted proxies what the nearest of them saw (see
     * {@link ClientAddress}); IPv6 addresses grouped by their prefix.
     */
    String ip(RoutingContext rc) {
        if (rc == null) {
            return GLOBAL;
        }
        if (clientAddress.peerDecides()) {
            // the identity is the peer's alone: parsed and rendered once per address, not on every request
            String host = ClientAddress.peerHost(rc.request());
            if (host != null) {
                String identity = peers.get(host);
                if (identity == null) {
                    identity = identity(ClientAddress.peer(host));
                    peers.put(host, identity);
                }
                return identity;
            }
        }
        return identity(clientAddress.of(rc.request()));
    }

    private String identity(InetAddress address) {
        if (address == null) {
            return "ip=unknown";
        }
        return address instanceof Inet4Address ? "ip=" + address.getHostAddress() : "ip6=" + ipv6Prefix(address.getAddress());
    }

    private String ipv6Prefix(byte[] a) {
        StringBuilder sb = new StringBuilder(34);
        int nibbles = (ipv6PrefixLength + 3) / 4;
        for (int i = 0; i < nibbles; i++) {
            int b = a[i / 2] & 0xff;
            int nibble = (i % 2 == 0) ? b >> 4 : b & 0xf;
            int bitsLeft = ipv6PrefixLength - i * 4;
            if (bitsLeft < 4) {
                nibble &= (0xf << (4 - bitsLeft)) & 0xf;
            }
            sb.append(Character.forDigit(nibble, 16));
        }
        return sb.append('/').append(ipv6PrefixLength).toString();
    }
}
