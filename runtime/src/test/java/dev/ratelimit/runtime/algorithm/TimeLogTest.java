package dev.ratelimit.runtime.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The in-process sliding log's ring of admitted times, against a plain deque playing the same operations: appends
 * that wrap around and grow the ring, expiry from the front, lookups by rank.
 */
class TimeLogTest {

    @Test
    void behavesAsADequeThroughWrapsGrowthAndShrinking() {
        Random random = new Random(20261123);
        TimeLog log = new TimeLog();
        ArrayDeque<Long> model = new ArrayDeque<>();
        long now = 0;
        for (int step = 0; step < 200_000; step++) {
            now += random.nextInt(3);
            // bursts of appends, then expiry of a varying span: the ring grows, wraps and shrinks many times
            if (random.nextInt(100) < 55) {
                int n = 1 + random.nextInt(random.nextInt(100) < 5 ? 300 : 3);
                for (int i = 0; i < n; i++) {
                    log.add(now);
                    model.addLast(now);
                }
            } else {
                long upTo = now - random.nextInt(400);
                log.removeUpTo(upTo);
                while (!model.isEmpty() && model.peekFirst() <= upTo) {
                    model.pollFirst();
                }
            }
            assertEquals(model.size(), log.size(), "size at step " + step);
            if (!model.isEmpty() && step % 97 == 0) {
                List<Long> expected = new ArrayList<>(model);
                for (int rank = 0; rank < expected.size(); rank++) {
                    assertEquals(expected.get(rank), log.get(rank), "rank " + rank + " at step " + step);
                }
            }
            assertTrue(log.capacity() >= log.size(), "the ring holds its entries");
        }
    }

    @Test
    void givesMemoryBackOnceItsEntriesExpire() {
        TimeLog log = new TimeLog();
        for (long t = 0; t < 100_000; t++) {
            log.add(t);
        }
        assertEquals(131_072, log.capacity(), "grown by doubling to hold 100,000 entries");
        log.removeUpTo(99_989);
        assertEquals(10, log.size());
        assertEquals(99_990, log.get(0), "the oldest entry left");
        assertEquals(99_999, log.get(9), "the newest entry");
        assertEquals(16, log.capacity(), "shrunk to at most twice what it holds, not kept at its peak");
        log.removeUpTo(Long.MAX_VALUE);
        assertEquals(0, log.size());
        assertEquals(4, log.capacity(), "an empty log keeps the smallest ring");
    }
}
