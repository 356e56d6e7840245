package dev.ratelimit.runtime.key;

/**
 * The {@code ip} identities of recent peer addresses, so that a keep-alive client's address is parsed and rendered
 * once rather than on every request. A fixed number of slots, each holding the last address whose hash led there:
 * bounded whatever the clients, no lock, no eviction to run. Entries are immutable, so a slot read while another
 * thread replaces it gives the old entry or the new one, never a mix; a miss only costs the work the cache saves.
 */
final class PeerIdentities {

    private static final int SLOTS = 1024;

    private record Entry(String host, String identity) {
    }

    private final Entry[] slots = new Entry[SLOTS];

    /** The identity cached for this peer address, or {@code null}. */
    String get(String host) {
        Entry e = slots[slot(host)];
        return e != null && e.host.equals(host) ? e.identity : null;
    }

    void put(String host, String identity) {
        slots[slot(host)] = new Entry(host, identity);
    }

    static int slot(String host) {
        int h = host.hashCode();
        return (h ^ (h >>> 16)) & (SLOTS - 1);
    }
}
