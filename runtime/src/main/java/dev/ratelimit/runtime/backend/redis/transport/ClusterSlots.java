package dev.ratelimit.runtime.backend.redis.transport;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * Which primary of a Redis Cluster serves each slot, as {@code CLUSTER SLOTS} last said: the executor gathers the
 * calls of one node into one run, whatever their slots ({@link ScriptChannel#submit}). The map is read when the first
 * call is made and again whenever a run reaches a node that no longer serves one of its keys (a resharding, a
 * failover); until it is known, or for a slot it does not name, a call goes on its own, routed by the cluster client.
 * A stale map costs nothing but speed: a call sent to the wrong node fails there before it touches anything, and is
 * sent again on its own ({@link BatchRun}).
 */
public final class ClusterSlots {

    static final int SLOTS = 16384;

    /** The least time between two readings of the map. */
    private static final long REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** CRC-16/XMODEM (polynomial 0x1021, no reflection, initial value 0), the hash Redis Cluster slots keys by. */
    private static final char[] CRC = new char[256];

    static {
        for (int b = 0; b < 256; b++) {
            int crc = b << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            CRC[b] = (char) crc;
        }
    }

    private final LuaScriptExecutor owner;
    /** Per slot, the index of its primary (see {@link #nodes}), or -1; null until first read. */
    private volatile short[] nodeOfSlot;
    /** Every primary seen, by address, to the index its runs are gathered under (kept across readings). */
    private final Map<String, Integer> nodes = new HashMap<>();
    private final AtomicBoolean reading = new AtomicBoolean();
    private volatile long readNanos = System.nanoTime() - REFRESH_NANOS;

    ClusterSlots(LuaScriptExecutor owner) {
        this.owner = owner;
    }

    /**
     * Whether the server refused a run across slots (see {@link #refuseRunsAcrossSlots}): every call then goes on its
     * own.
     */
    private volatile boolean refused;

    /** The index of the primary serving {@code slot} as last read, or -1 when not known (then reads the map). */
    int nodeOf(int slot) {
        if (refused) {
            return -1;
        }
        short[] map = nodeOfSlot;
        if (map == null) {
            refresh();
            return -1;
        }
        return map[slot];
    }

    /**
     * The server refused a script the keys it was not given: runs across slots stop for good, and every call goes on its
     * own, routed by the cluster client.
     */
    void refuseRunsAcrossSlots(String why) {
        if (!refused) {
            refused = true;
            LuaScriptExecutor.LOG.warnf("The Redis Cluster refused a run of rate-limit decisions across slots (%s): decisions"
                    + " are sent one by one from now on", why);
        }
    }

    /**
     * Reads the map again: now, or when 100 ms have passed since the last reading began; nothing when a reading is
     * under way or due.
     */
    void refresh() {
        if (!reading.compareAndSet(false, true)) {
            return;
        }
        long wait = REFRESH_NANOS - (System.nanoTime() - readNanos);
        if (wait > 0) {
            owner.vertx().setTimer(Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait)), t -> read());
        } else {
            read();
        }
    }

    private void read() {
        readNanos = System.nanoTime();
        owner.send(Request.cmd(Command.CLUSTER).arg("SLOTS")).subscribe().with(this::read, failure -> {
            reading.set(false);
            LuaScriptExecutor.LOG.debugf("Could not read the Redis Cluster's slots (%s); calls go on their own until then",
                    failure);
        });
    }

    /** Takes a {@code CLUSTER SLOTS} reply: per range, its first and last slot, then its primary (host, port, ...). */
    private void read(Response ranges) {
        try {
            short[] map = new short[SLOTS];
            Arrays.fill(map, (short) -1);
            synchronized (nodes) {
                for (Response range : ranges) {
                    int first = range.get(0).toInteger();
                    int last = range.get(1).toInteger();
                    Response primary = range.get(2);
                    String address = primary.get(0).toString() + ':' + primary.get(1).toInteger();
                    Integer index = nodes.get(address);
                    if (index == null) {
                        if (nodes.size() >= Short.MAX_VALUE) {
                            continue; // never in practice: a cluster has at most 16,384 primaries
                        }
                        index = nodes.size();
                        nodes.put(address, index);
                    }
                    for (int s = Math.max(0, first); s <= Math.min(SLOTS - 1, last); s++) {
                        map[s] = (short) (int) index;
                    }
                }
            }
            nodeOfSlot = map;
        } catch (RuntimeException e) {
            LuaScriptExecutor.LOG.debugf(e, "Unexpected CLUSTER SLOTS reply; calls go on their own until it is read again");
        } finally {
            reading.set(false);
        }
    }

    /**
     * The slot of {@code key}: the CRC-16 of its hash tag (the text between its first {@code {} and the first
     * {@code }} after it, when not empty), else of the whole key, in UTF-8, modulo 16,384.
     */
    public static int slot(String key) {
        int from = 0;
        int to = key.length();
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            if (close > open + 1) {
                from = open + 1;
                to = close;
            }
        }
        int crc = 0;
        for (int i = from; i < to; i++) {
            char c = key.charAt(i);
            if (c >= 0x80) {
                // beyond ASCII: hash the UTF-8 bytes (rare in keys, which the extension builds mostly of ASCII)
                return crc16(crc, key.substring(i, to).getBytes(StandardCharsets.UTF_8)) & (SLOTS - 1);
            }
            crc = (crc << 8) ^ CRC[((crc >>> 8) ^ c) & 0xff];
        }
        return crc & 0xffff & (SLOTS - 1);
    }

    private static int crc16(int crc, byte[] bytes) {
        for (byte b : bytes) {
            crc = (crc << 8) ^ CRC[((crc >>> 8) ^ b) & 0xff];
        }
        return crc & 0xffff;
    }
}
