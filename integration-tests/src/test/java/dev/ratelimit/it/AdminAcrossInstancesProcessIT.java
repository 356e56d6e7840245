package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.vertx.core.json.JsonObject;

/**
 * The operators' endpoint across two instances of the packaged application on one real redis-server: a device locked
 * out through one instance is shown locked by the other's endpoint, among the keys limited now on both; a reset made
 * through one instance's endpoint is seen by the other at once; the on-call viewer may read but not reset.
 */
class AdminAcrossInstancesProcessIT extends TwoInstances {

    private HttpResponse<String> pin(AppProcess app, String device) throws Exception {
        return send("GET", app.url("/api/pin"), "X-Device", device);
    }

    private HttpResponse<String> admin(AppProcess app, String method, String path, String user, String password)
            throws Exception {
        return send(method, app.managementUrl(path), "Authorization", basic(user, password));
    }

    @Test
    void aResetThroughOneInstancesEndpointIsSeenByTheOther() throws Exception {
        String device = "phone-" + UUID.randomUUID();
        AppProcess a = apps.get(0);
        AppProcess b = apps.get(1);
        // pin: 3 per 10 s (a fixed window), the fourth locks the device out for a minute
        awaitWindowRoom(10_000, 4_000);
        for (int i = 0; i < 3; i++) {
            assertEquals(200, pin(a, device).statusCode());
        }
        assertEquals(429, pin(a, device).statusCode());

        String key = "/q/ratelimit/policies/pin/keys/" + device;
        HttpResponse<String> locked = admin(b, "GET", key, "oncall", "oncall-secret");
        assertEquals(200, locked.statusCode(), locked.body());
        JsonObject state = new JsonObject(locked.body());
        assertEquals(false, state.getBoolean("allowed"), locked.body());
        assertTrue(state.getLong("retryAfterMillis") > 50_000, "the minute's lock-out: " + locked.body());
        assertEquals("hdr=" + device, state.getString("identity"));

        // every instance's endpoint lists the device among those limited now (a's denial reaches the shared tally
        // within its 5 s flush)
        long deadline = System.nanoTime() + 10_000_000_000L;
        String limited = "";
        while (System.nanoTime() < deadline && !limited.contains(device)) {
            limited = admin(b, "GET", "/q/ratelimit/policies/pin/limited", "oncall", "oncall-secret").body();
            Thread.sleep(200);
        }
        assertTrue(limited.contains("hdr=" + device), limited);

        assertEquals(403, admin(b, "DELETE", key, "oncall", "oncall-secret").statusCode(), "a viewer cannot reset");
        HttpResponse<String> reset = admin(b, "DELETE", key, "ops", "ops-secret");
        assertEquals(200, reset.statusCode(), reset.body());
        assertEquals(200, pin(b, device).statusCode(), "the instance that reset admits at once");
        Thread.sleep(1_200); // the other holds its cached denial of a lock-out a second at most
        assertEquals(200, pin(a, device).statusCode(), "and the other within a second");
    }
}
