package dev.ratelimit.runtime.key;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.inject.Instance;


import dev.ratelimit.KeyResolver;
import io.quarkus.vertx.http.runtime.ProxyConfig;
import io.vertx.ext.web.RoutingContext;

/**
 * Resolves a request's identity for a key source ({@link KeySource}), with what the sources need of the application:
 * the client's address behind its proxies ({@link ClientAddress}), the missing-header setting and its
 * {@link KeyResolver} beans.
 */
public class KeyResolution {

    /** Returned when a {@code header:} key is missing and the configuration says to deny. */
    public static final String DENY = new String("<deny>");


    private final int ipv6PrefixLength;
    private final ClientAddress clientAddress;
    private final boolean denyMissingHeader;
    private final Instance<KeyResolver> resolvers;
    private final Map<String, KeyResolver> resolverCache = new ConcurrentHashMap<>();
    private final PeerIdentities peers = new PeerIdentities();
    /** The sources of the keys met so far, parsed once each (the configured keys and the annotations' own). */
    private final Map<String, KeySource> sources = new ConcurrentHashMap<>();

    /**
     * @param ipv6PrefixLength how many leading bits of an IPv6 client's address name it
     * @param denyMissingHeader whether a request without its key header is denied
     * @param proxy Quarkus's {@code quarkus.http.proxy.*}
     * @param trustedProxies the entries of {@code quarkus.http.proxy.trusted-proxies} as written
     * @param resolvers the application's {@link KeyResolver} beans
     */
    public KeyResolution(int ipv6PrefixLength, boolean denyMissingHeader, ProxyConfig proxy, List<String> trustedProxies,
            Instance<KeyResolver> resolvers) {
        this.ipv6PrefixLength = Math.max(0, Math.min(128, ipv6PrefixLength));
        this.clientAddress = ClientAddress.from(proxy, trustedProxies);
        this.denyMissingHeader = denyMissingHeader;
        this.resolvers = resolvers;
    }

    /**
     * The identity for a key source as configuration spells it (see {@link KeySource}); {@code rc} is {@code null}
     * outside an HTTP request, where client-bound sources ({@code ip}, {@code header:}) count against one global
     * identity. Returns {@link #DENY} when a required header is missing and the configuration denies.
     */
    public String resolve(String source, RoutingContext rc) {
        KeySource parsed = sources.get(source);
        if (parsed == null) {
            parsed = KeySource.parse(source);
            sources.put(source, parsed);
        }
        return parsed.resolve(rc, this);
    }

    /** Whether a request without its key header is denied ({@code quarkus.ratelimit.http.missing-header=deny}). */
    boolean denyMissingHeader() {
        return denyMissingHeader;
    }

    /** The application's {@code KeyResolver} of that name, or null. */
    KeyResolver resolver(String name) {
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
     * The client's address as the {@code ip} key derives it (see {@link ClientAddress}), before any grouping; null
     * outside an HTTP request or when the connection has none.
     */
    public InetAddress address(RoutingContext rc) {
        return rc == null ? null : clientAddress.of(rc.request());
    }

    /**
     * The client's address: the peer, or behind trusted proxies what the nearest of them saw (see
     * {@link ClientAddress}); IPv6 addresses grouped by their prefix.
     */
    public String ip(RoutingContext rc) {
        if (rc == null) {
            return KeySource.GLOBAL_IDENTITY;
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

    /**
     * The identity a request from the address {@code literal} is counted under by an {@code ip} key ({@code ip=...},
     * or {@code ip6=<prefix>/<length>} for IPv6), or null when it is no address literal.
     */
    public String addressIdentity(String literal) {
        InetAddress address = ClientAddress.peer(literal);
        return address == null ? null : identity(address);
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
