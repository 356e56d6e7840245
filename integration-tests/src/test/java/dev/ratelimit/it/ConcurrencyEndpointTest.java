package dev.ratelimit.it;

import static dev.ratelimit.it.RateLimitHeaders.longHeader;
import static dev.ratelimit.it.RateLimitHeaders.retryAfter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;

/**
 * The {@code concurrency} algorithm behind a real HTTP endpoint and a real Redis: at most 2 requests of a client in
 * flight, a slot freed when the response ends or the client goes away (policy {@code concurrency} in
 * application.properties; the endpoint answers after {@code ?ms=}).
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class ConcurrencyEndpointTest {

    private static final String PATH = "/algorithms/concurrency";

    @Test
    void twoInFlightThenA429UntilOneEnds() throws Exception {
        TestClient client = TestClient.fresh();
        assertEquals(200, client.given().get(PATH).statusCode(), "warm-up");
        List<CompletableFuture<Response>> slow = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            slow.add(CompletableFuture.supplyAsync(() -> client.given().get(PATH + "?ms=4000")));
        }
        Thread.sleep(1_000);
        // both slow requests hold their slot: a third one is refused while they run
        Response third = client.given().get(PATH);
        assertEquals(429, third.statusCode(), "a third request in flight");
        assertEquals(1, retryAfter(third), "a slot frees when a request ends: retry after a second");
        assertEquals(0, longHeader(third, "X-RateLimit-Remaining"));
        assertEquals(2, longHeader(third, "X-RateLimit-Limit"));
        for (CompletableFuture<Response> f : slow) {
            assertEquals(200, f.get(10, TimeUnit.SECONDS).statusCode());
        }
        // the slots came back when the responses ended: many requests one after the other all pass
        for (int i = 0; i < 10; i++) {
            Response r = client.given().get(PATH);
            assertEquals(200, r.statusCode(), "request " + i + " after the slow ones ended");
            assertEquals(1, longHeader(r, "X-RateLimit-Remaining"), "one slot is this request's own");
        }
    }

    @Test
    void aClientThatGoesAwayFreesItsSlot() throws Exception {
        TestClient client = TestClient.fresh();
        for (int i = 0; i < 2; i++) {
            abandon(client.address(), PATH + "?ms=20000");
        }
        // the server's work would run 20 s more; the slots were freed when the connections closed
        Response r = awaitStatus(client, 200, 5_000);
        assertEquals(200, r.statusCode(), "slots of abandoned requests are still held");
        assertEquals(1, longHeader(r, "X-RateLimit-Remaining"));
    }

    /** Sends a request, waits until the server has taken it, and closes the connection without reading the reply. */
    private static void abandon(InetAddress from, String path) throws Exception {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), RestAssured.port), 3000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(300);
        }
    }

    /** Polls until a request gets this status or the time is up; the last response. */
    private static Response awaitStatus(TestClient client, int status, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        Response r;
        do {
            r = client.given().get(PATH);
            if (r.statusCode() == status) {
                return r;
            }
            Thread.sleep(50);
        } while (System.nanoTime() < deadline);
        assertTrue(false, "no " + status + " within " + millis + " ms; last " + r.statusCode());
        return r;
    }
}
