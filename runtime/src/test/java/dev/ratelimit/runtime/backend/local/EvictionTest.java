package dev.ratelimit.runtime.backend.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;

/**
 * Found by a flaky deny-cache test: when expired entries alone make room, a live entry tied at the cut must stay,
 * wherever the map's order puts it. One pass dropped it when it came before the expired entries.
 */
class EvictionTest {

    /** Values: negative means expired; the score is the absolute value. */
    @Test
    void aLiveEntryStaysWhenExpiredOnesMakeRoomWhereverItComesInTheMap() {
        for (int live = 0; live < 101; live++) {
            ConcurrentHashMap<String, Integer> map = new ConcurrentHashMap<>();
            for (int i = 0; i < 101; i++) {
                map.put("k" + i, i == live ? 1 : -1);
            }
            String first = map.keys().nextElement();
            new Eviction(100).trim(map, v -> v < 0, v -> Math.abs(v));
            assertEquals(1, map.size(), "live entry k" + live + " (map starts with " + first + ")");
            assertTrue(map.containsKey("k" + live));
        }
    }
}
