package dev.ratelimit.runtime.key;

import static dev.ratelimit.runtime.key.ForwardedSyntax.forwardedElement;
import static dev.ratelimit.runtime.key.ForwardedSyntax.literal;
import static dev.ratelimit.runtime.key.ForwardedSyntax.node;
import static dev.ratelimit.runtime.key.ForwardedSyntax.previousSeparator;
import static dev.ratelimit.runtime.key.ForwardedSyntax.trim;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.jboss.logging.Logger;

import dev.ratelimit.runtime.key.ForwardedSyntax.Hop;
import io.quarkus.runtime.configuration.CidrAddressConverter;
import io.quarkus.runtime.configuration.InetSocketAddressConverter;
import io.quarkus.vertx.http.runtime.ForwardedInfo;
import io.quarkus.vertx.http.runtime.ProxyConfig;
import io.smallrye.common.net.CidrAddress;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;

/**
 * The client's address for the {@code ip} key: behind proxies, what the nearest trusted proxy saw.
 * <p>
 * Quarkus's own forwarding support takes the leftmost {@code X-Forwarded-For} element (or the first
 * {@code for=}), which an appending proxy (nginx's {@code $proxy_add_x_forwarded_for}, cloud load
 * balancers) passes on as the client wrote it; a key built from it is the client's choice. Here the
 * list is walked from the right instead: each proxy appends the address it saw, so the rightmost
 * element that is not a trusted proxy is the last address no trusted party made up. This is what
 * nginx's {@code real_ip_recursive} does.
 * <ul>
 * <li>Headers count only with {@code quarkus.http.proxy.proxy-address-forwarding} on and only when
 * Quarkus trusted the direct peer (it then records a {@link ForwardedInfo} for the request): the peer
 * check is Quarkus's own, host names of {@code trusted-proxies} included.</li>
 * <li>The hops inside the header are matched against the same {@code trusted-proxies} list, parsed
 * with Quarkus's converters: addresses (with an optional port) and CIDR blocks. Host names cannot be
 * resolved on the event loop for every hop, so a hop is never trusted by name.</li>
 * <li>The header read is the one Quarkus reads: {@code Forwarded} with {@code allow-forwarded},
 * {@code X-Forwarded-For} with {@code allow-x-forwarded} (on unless {@code allow-forwarded} is), and
 * when both are allowed the one {@code forwarded-precedence} names if the request has it. Several
 * lines of it are one list, in order.</li>
 * <li>An element that is not an address (garbage, {@code unknown}, an RFC 7239 {@code _obfuscated}
 * identifier, a {@code Forwarded} element without exactly one {@code for}) ends the walk, and the
 * request counts against the address of the trusted proxy that reported it (the peer, for the
 * rightmost): the client is unknown, and a value that is not an address never becomes a key, since a
 * client could vary it at will. The walk never goes past such an element.</li>
 * <li>When every element is a trusted proxy, the leftmost is the client.</li>
 * </ul>
 * Elements are read from the right, so whatever a client wrote on the left (an unterminated quote,
 * a comma inside quotes) cannot change how the elements its proxies appended are split. Their syntax
 * is {@link ForwardedSyntax}'s.
 */
final class ClientAddress {

    private static final Logger LOG = Logger.getLogger(ClientAddress.class);

    static final String FORWARDED = "Forwarded";
    static final String X_FORWARDED_FOR = "X-Forwarded-For";
    private static final Pattern CIDR = Pattern.compile(".+/\\d+");

    private final boolean forwarding;
    /** The header read first, or the only one; {@code null} when neither may be read. */
    private final String firstHeader;
    /** The header read when the request lacks the first one; {@code null} when only one may be read. */
    private final String secondHeader;
    private final List<CidrAddress> trustedBlocks;
    private final List<InetSocketAddress> trustedAddresses;

    /** As Quarkus is configured: {@code quarkus.http.proxy.*}, and the entries of {@code trusted-proxies} as written. */
    static ClientAddress from(ProxyConfig proxy, List<String> trustedProxies) {
        boolean allowForwarded = proxy.allowForwarded();
        boolean allowXForwarded = proxy.allowXForwarded().orElse(!allowForwarded);
        boolean forwardedFirst = proxy.forwardedPrecedence() == ProxyConfig.ForwardedPrecedence.FORWARDED;
        String first;
        String second = null;
        if (allowForwarded && allowXForwarded) {
            first = forwardedFirst ? FORWARDED : X_FORWARDED_FOR;
            second = forwardedFirst ? X_FORWARDED_FOR : FORWARDED;
        } else {
            first = allowForwarded ? FORWARDED : allowXForwarded ? X_FORWARDED_FOR : null;
        }
        return new ClientAddress(proxy.proxyAddressForwarding(), first, second, trustedProxies);
    }

    ClientAddress(boolean forwarding, String firstHeader, String secondHeader, List<String> trustedProxies) {
        this.forwarding = forwarding;
        this.firstHeader = firstHeader;
        this.secondHeader = secondHeader;
        List<CidrAddress> blocks = new ArrayList<>();
        List<InetSocketAddress> addresses = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (String entry : trustedProxies) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue;
            }
            // the same syntax and converters as Quarkus's TrustedProxyCheckPartConverter
            if (CIDR.matcher(e).matches()) {
                blocks.add(new CidrAddressConverter().convert(e));
                continue;
            }
            InetSocketAddress a = new InetSocketAddressConverter().convert("localhost".equals(e) ? "127.0.0.1" : e);
            if (a.isUnresolved() || a.getAddress() == null) {
                names.add(e);
            } else {
                addresses.add(new InetSocketAddress(plain(a.getAddress()), a.getPort()));
            }
        }
        this.trustedBlocks = List.copyOf(blocks);
        this.trustedAddresses = List.copyOf(addresses);
        if (forwarding && trustedProxies.stream().allMatch(e -> e.trim().isEmpty())) {
            // Quarkus then takes forwarding headers from every peer: a client connecting directly writes its own
            LOG.warn("quarkus.http.proxy.proxy-address-forwarding is on without quarkus.http.proxy.trusted-proxies: "
                    + "every peer is trusted to forward, so a client that reaches this service directly chooses its "
                    + "own ip rate-limit key by writing the forwarding header. List your proxies in "
                    + "quarkus.http.proxy.trusted-proxies (addresses or CIDR blocks), or make sure only they can "
                    + "connect");
        }
        if (forwarding && !names.isEmpty()) {
            LOG.warnf("quarkus.http.proxy.trusted-proxies names hosts (%s): the ip rate-limit key trusts them as the "
                    + "direct peer (Quarkus resolves them per request) but not as hops inside %s; list proxies that "
                    + "forward to other proxies by address or CIDR, or their clients share one budget",
                    String.join(", ", names), firstHeader == null ? "forwarding headers" : firstHeader);
        }
    }

    /** The client's address, or {@code null} when the connection has none (a domain socket, a virtual channel). */
    InetAddress of(HttpServerRequest request) {
        InetAddress peer = peer(peerHost(request));
        if (peer == null || peerDecides() || !quarkusTrustedThePeer(request)) {
            return peer;
        }
        String header = firstHeader;
        List<String> lines = request.headers().getAll(header);
        if (lines.isEmpty() && secondHeader != null) {
            header = secondHeader;
            lines = request.headers().getAll(header);
        }
        return lines.isEmpty() ? peer : walk(lines, FORWARDED.equals(header), peer);
    }

    /** Whether the client is always the direct peer: no forwarding header is ever read. */
    boolean peerDecides() {
        return !forwarding || firstHeader == null;
    }

    /** The direct peer's address as its connection reports it, or {@code null} when it has none. */
    static String peerHost(HttpServerRequest request) {
        HttpConnection connection = request.connection();
        SocketAddress socket = connection == null ? null : connection.remoteAddress();
        return socket == null ? null : socket.hostAddress();
    }

    /**
     * Quarkus resolves the forwarded values when they are first asked for and, if it trusted the peer,
     * records them in the request's context; {@code remoteAddress()} makes sure that has happened. That context is
     * the current one wherever the limiter resolves a key (the filter on the request's event loop, the interceptor on
     * the worker Quarkus runs the request on), read through the public {@link Context} API. Without a current
     * context (a thread of the application's own) the headers are not read: the peer decides.
     */
    private static boolean quarkusTrustedThePeer(HttpServerRequest request) {
        request.remoteAddress();
        Context context = Vertx.currentContext();
        return context != null && context.getLocal(ForwardedInfo.CONTEXT_KEY) != null;
    }

    /** The client behind {@code peer} according to these header lines (in order, each a comma-separated list). */
    InetAddress walk(List<String> lines, boolean forwardedSyntax, InetAddress peer) {
        // the address of whoever wrote the element being read: the peer wrote the rightmost
        InetAddress reporter = peer;
        for (int l = lines.size() - 1; l >= 0; l--) {
            String line = lines.get(l);
            int end = line.length();
            while (end >= 0) {
                int start = forwardedSyntax ? previousSeparator(line, end, ',') : line.lastIndexOf(',', end - 1);
                String element = line.substring(start + 1, end);
                Hop hop = forwardedSyntax ? forwardedElement(element) : node(trim(element));
                if (hop == null) {
                    return reporter;
                }
                if (!trusted(hop)) {
                    return hop.address();
                }
                reporter = hop.address();
                end = start;
            }
        }
        return reporter;
    }

    boolean trusted(Hop hop) {
        for (CidrAddress block : trustedBlocks) {
            if (block.matches(hop.address())) {
                return true;
            }
        }
        for (InetSocketAddress a : trustedAddresses) {
            if (a.getAddress().equals(hop.address()) && (a.getPort() == 0 || a.getPort() == hop.port())) {
                return true;
            }
        }
        return false;
    }

    /** The peer's address as the connection reports it (a literal, possibly with an IPv6 zone, which keys ignore). */
    static InetAddress peer(String hostAddress) {
        if (hostAddress == null) {
            return null;
        }
        int zone = hostAddress.indexOf('%');
        return literal(zone < 0 ? hostAddress : hostAddress.substring(0, zone));
    }

    /** An address without its host name or zone, so that it equals a parsed header value. */
    private static InetAddress plain(InetAddress a) {
        try {
            return InetAddress.getByAddress(a.getAddress());
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
