package dev.ratelimit.runtime.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class PeerIdentitiesTest {

    @Test
    void aCachedPeerGetsItsOwnIdentityBackAndAnUnknownOneNone() {
        PeerIdentities peers = new PeerIdentities();
        assertNull(peers.get("192.0.2.1"));
        peers.put("192.0.2.1", "ip=192.0.2.1");
        assertEquals("ip=192.0.2.1", peers.get(new String("192.0.2.1")), "equal addresses, not the same string");
        assertNull(peers.get("192.0.2.10"));
    }

    /** Addresses sharing a slot replace each other: the one replaced is a miss, never another address's identity. */
    @Test
    void addressesSharingASlotNeverGetEachOthersIdentity() {
        PeerIdentities peers = new PeerIdentities();
        Map<Integer, String> bySlot = new HashMap<>();
        String first = null;
        String second = null;
        for (int i = 0; first == null; i++) {
            String host = "10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255);
            String other = bySlot.putIfAbsent(PeerIdentities.slot(host), host);
            if (other != null) {
                first = other;
                second = host;
            }
        }
        peers.put(first, "ip=" + first);
        peers.put(second, "ip=" + second);
        assertNull(peers.get(first), first + " was replaced by " + second);
        assertEquals("ip=" + second, peers.get(second));
        peers.put(first, "ip=" + first);
        assertEquals("ip=" + first, peers.get(first));
        assertNull(peers.get(second));
    }
}
