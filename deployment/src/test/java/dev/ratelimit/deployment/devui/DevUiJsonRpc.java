package dev.ratelimit.deployment.devui;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Calls the extension's Dev UI JSON-RPC methods the way its page does: JSON-RPC 2.0 requests over Dev UI's WebSocket,
 * a method named {@code <namespace>_<method>} with named parameters, the answer's {@code result.object} read back.
 * Written here because Quarkus's own test client for it is not published for 3.34.1 (the 3.33.2 one needs a test
 * configuration class that 3.34 no longer has).
 */
final class DevUiJsonRpc implements AutoCloseable {

    /** The extension's namespace: Dev UI names it after the runtime artifact. */
    static final String NAMESPACE = "quarkus-ratelimit";

    private final Map<Integer, CompletableFuture<JsonObject>> pending = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    private final WebSocket socket;

    private DevUiJsonRpc(URL application) throws Exception {
        URI endpoint = URI.create("ws://" + application.getHost() + ":" + application.getPort() + "/q/dev-ui/json-rpc-ws");
        socket = HttpClient.newHttpClient().newWebSocketBuilder().buildAsync(endpoint, new Replies())
                .get(30, TimeUnit.SECONDS);
    }

    /** Connected to the Dev UI of the application at {@code application}. */
    static DevUiJsonRpc connect(URL application) throws Exception {
        return new DevUiJsonRpc(application);
    }

    /** The object a method answered. */
    JsonObject object(String method, Map<String, Object> params) throws Exception {
        return (JsonObject) call(method, params);
    }

    /** The array a method answered. */
    JsonArray array(String method) throws Exception {
        return (JsonArray) call(method, Map.of());
    }

    private Object call(String method, Map<String, Object> params) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonObject> reply = new CompletableFuture<>();
        pending.put(id, reply);
        JsonObject request = new JsonObject().put("jsonrpc", "2.0").put("id", id)
                .put("method", NAMESPACE + "_" + method).put("params", new JsonObject(params));
        socket.sendText(request.encode(), true).get(30, TimeUnit.SECONDS);
        JsonObject answer = reply.get(30, TimeUnit.SECONDS);
        JsonObject result = answer.getJsonObject("result");
        if (result == null) {
            throw new AssertionError(method + " answered no result: " + answer);
        }
        return result.getValue("object");
    }

    @Override
    public void close() {
        socket.sendClose(WebSocket.NORMAL_CLOSURE, "done");
    }

    /** Joins the frames of each message and completes the call whose id it carries; others are ignored. */
    private final class Replies implements WebSocket.Listener {
        private final StringBuilder message = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            message.append(data);
            if (last) {
                JsonObject answer = new JsonObject(message.toString());
                message.setLength(0);
                CompletableFuture<JsonObject> reply = pending.remove(answer.getInteger("id", -1));
                if (reply != null) {
                    reply.complete(answer);
                }
            }
            webSocket.request(1);
            return null;
        }
    }
}
