package dev.ratelimit.it;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.atomic.AtomicInteger;

import io.restassured.RestAssured;
import io.restassured.config.HttpClientConfig;
import io.restassured.config.RestAssuredConfig;
import io.restassured.specification.RequestSpecification;

/**
 * One HTTP client with its own address: requests leave from a loopback address of its own
 * (127.0.0.0/8 all reaches this machine), so every test is a different client to the {@code ip} key
 * source. Tests stay independent even of state Redis does not hold (the in-process cache of recent
 * denials survives a FLUSHALL), and can name the exact identity their budget is kept under.
 */
final class TestClient {

    private static final AtomicInteger NEXT = new AtomicInteger();

    private final InetAddress address;
    private final RestAssuredConfig config;

    private TestClient(InetAddress address) {
        this.address = address;
        this.config = RestAssured.config()
                .httpClient(HttpClientConfig.httpClientConfig().setParam("http.route.local-address", address));
    }

    /** A client no other test in this JVM uses (127.0.1.1, 127.0.1.2, ...). */
    static TestClient fresh() {
        int n = NEXT.getAndIncrement();
        try {
            return new TestClient(InetAddress.getByAddress(new byte[] { 127, 0, (byte) (1 + n / 250), (byte) (1 + n % 250) }));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A client at a fixed loopback address, for tests that need a particular peer (a trusted proxy
     * that writes forwarding headers itself). Its budgets are shared with every other use of that address.
     */
    static TestClient at(String loopbackAddress) {
        try {
            return new TestClient(InetAddress.getByName(loopbackAddress));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A request from this client. */
    RequestSpecification given() {
        return RestAssured.given().config(config);
    }

    InetAddress address() {
        return address;
    }

    /** The identity the {@code ip} key source gives this client (the hash tag of its keys). */
    String identity() {
        return "ip=" + address.getHostAddress();
    }
}
