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
 * flight, a slot freed when the work and its response have ended, whether the client waited for it or not (policy
 * {@code concurrency} in application.properties; the endpoints answer after {@code ?ms=}, one without blocking, one
 * on a worker thread).
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

    /**
     * A client that leaves while a blocking method works for it does not end the work: the slot is the work's, held
     * until the method has returned and its response ended, then freed. Before, it was freed when the connection
     * closed, so abandoned requests let the server run any number of them at once under a limit of 2.
     */
    @Test
    void aClientThatLeavesDuringBlockingWorkHoldsItsSlotUntilTheWorkEnds() throws Exception {
        TestClient client = TestClient.fresh();
        long start = System.nanoTime();
        for (int i = 0; i < 2; i++) {
            abandon(client.address(), PATH + "/blocking?ms=2500");
        }
        // both clients are gone, their work goes on: no third request may run beside it
        Response during = client.given().get(PATH);
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (elapsed < 2_000) {
            assertEquals(429, during.statusCode(), "a slot was freed while its work still ran");
        }
        // once the work has ended, both slots are back
        awaitStatus(client, 200, 6_000);
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) >= 2_400,
                "a slot came back before its work ended");
        // the two works started 300 ms apart: once the second has ended too, both slots are back
        Thread.sleep(500);
        assertEquals(1, longHeader(client.given().get(PATH), "X-RateLimit-Remaining"));
    }

    /**
     * A {@code Uni} method's work is cancelled by Quarkus REST when its client leaves, and its request completes then:
     * the work has ended, so its slot is free at once.
     */
    @Test
    void aClientThatLeavesACancellableUniFreesItsSlotWithTheWork() throws Exception {
        TestClient client = TestClient.fresh();
        long start = System.nanoTime();
        for (int i = 0; i < 2; i++) {
            abandon(client.address(), PATH + "?ms=20000");
        }
        Response r = awaitStatus(client, 200, 5_000);
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 10_000, "freed with the cancelled work");
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
