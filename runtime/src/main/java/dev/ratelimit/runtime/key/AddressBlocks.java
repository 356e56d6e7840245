package dev.ratelimit.runtime.key;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import io.smallrye.common.net.CidrAddress;
import io.smallrye.common.net.Inet;

/**
 * Client addresses as a policy's {@code exempt-addresses} lists them: CIDR blocks ({@code 10.0.0.0/8},
 * {@code fd00::/8}) and single addresses ({@code 127.0.0.1}, {@code ::1}), matched against the address the {@code ip}
 * key derives (behind trusted proxies, what the nearest of them saw, never a value the client wrote).
 */
public final class AddressBlocks {

    private final List<CidrAddress> blocks;

    private AddressBlocks(List<CidrAddress> blocks) {
        this.blocks = blocks;
    }

    /** The blocks of {@code entries}, each valid (see {@link #problem}). */
    public static AddressBlocks of(List<String> entries) {
        List<CidrAddress> blocks = new ArrayList<>(entries.size());
        for (String e : entries) {
            blocks.add(parse(e));
        }
        return new AddressBlocks(List.copyOf(blocks));
    }

    /** What is wrong with one entry, or {@code null} when it is an address or a CIDR block. */
    public static String problem(String entry) {
        return parse(entry) == null
                ? "not an address or a CIDR block (write e.g. 10.0.0.0/8, 192.168.1.7, fd00::/8 or ::1)"
                : null;
    }

    private static CidrAddress parse(String entry) {
        String e = entry.trim();
        if (e.indexOf('/') >= 0) {
            return Inet.parseCidrAddress(e);
        }
        InetAddress a = Inet.parseInetAddress(e);
        return a == null ? null : CidrAddress.create(a, a.getAddress().length * 8);
    }

    /** Whether {@code address} (null: unknown) lies in one of the blocks. */
    public boolean contains(InetAddress address) {
        if (address == null) {
            return false;
        }
        for (CidrAddress b : blocks) {
            if (b.matches(address)) {
                return true;
            }
        }
        return false;
    }
}
