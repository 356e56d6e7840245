package dev.ratelimit.it;

import java.util.concurrent.TimeUnit;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;

/**
 * A reverse proxy over real HTTP that keeps what its client wrote in the forwarding header and
 * appends the address it saw, the way nginx does with
 * {@code proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for} (several incoming lines
 * joined with ", ", its peer's address last), or the same for an RFC 7239 {@code Forwarded}
 * element. It connects upstream from a loopback address of its own, so the next hop sees it as a
 * distinct peer.
 */
final class AppendingProxy implements AutoCloseable {

    enum Header {
        X_FORWARDED_FOR,
        FORWARDED
    }

    private final Vertx vertx;
    private final HttpServer server;

    private AppendingProxy(Vertx vertx, HttpServer server) {
        this.vertx = vertx;
        this.server = server;
    }

    /**
     * Listens on 127.0.0.1 (a free port) and forwards every request to {@code 127.0.0.1:upstreamPort},
     * connecting from {@code fromAddress}.
     */
    static AppendingProxy start(Header header, String fromAddress, int upstreamPort) {
        Vertx vertx = Vertx.vertx();
        HttpClient upstream = vertx.createHttpClient(new HttpClientOptions().setLocalAddress(fromAddress));
        HttpServer server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1"))
                .requestHandler(request -> forward(request, header, upstream, upstreamPort));
        try {
            server.listen(0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            vertx.close();
            throw new IllegalStateException("proxy did not start", e);
        }
        return new AppendingProxy(vertx, server);
    }

    private static void forward(HttpServerRequest request, Header header, HttpClient upstream, int upstreamPort) {
        request.pause();
        String peer = request.remoteAddress().hostAddress();
        RequestOptions options = new RequestOptions().setMethod(request.method()).setHost("127.0.0.1")
                .setPort(upstreamPort).setURI(request.uri());
        upstream.request(options).compose(out -> {
            out.headers().setAll(request.headers());
            out.headers().remove(HttpHeaders.CONNECTION);
            if (header == Header.X_FORWARDED_FOR) {
                out.headers().set("X-Forwarded-For", append(String.join(", ", request.headers().getAll("X-Forwarded-For")), peer));
            } else {
                String node = peer.indexOf(':') >= 0 ? "\"[" + peer + "]\"" : peer;
                out.headers().set("Forwarded", append(String.join(", ", request.headers().getAll("Forwarded")), "for=" + node));
            }
            return out.send(request);
        }).compose(in -> in.body().map(body -> {
            request.response().setStatusCode(in.statusCode());
            in.headers().forEach(h -> {
                String name = h.getKey();
                if (!name.equalsIgnoreCase("transfer-encoding") && !name.equalsIgnoreCase("content-length")
                        && !name.equalsIgnoreCase("connection")) {
                    request.response().headers().add(name, h.getValue());
                }
            });
            return body;
        })).onSuccess(body -> request.response().end(body))
                .onFailure(e -> request.response().setStatusCode(502).end("proxy: " + e));
    }

    private static String append(String existing, String element) {
        return existing.isEmpty() ? element : existing + ", " + element;
    }

    int port() {
        return server.actualPort();
    }

    @Override
    public void close() {
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
