package dev.ratelimit.runtime.backend;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import dev.ratelimit.runtime.policy.Policy;

/**
 * Builds Redis keys: {@code <prefix>:{<identity>}:<policy>}.
 * <p>
 * The identity is the hash tag, so every key of one identity (10/s and 1000/h for one user) lives in
 * one Redis Cluster slot and is decided in one script call. An identity is used as is only when it
 * is short printable ASCII without {@code {}, {@code }}, {@code :} or spaces; anything else
 * (client-controlled header values, unicode user names, 10 KB strings) is replaced by
 * {@code :} + 32 hex digits of its SHA-256. A raw identity never contains {@code :}, so a hashed one
 * can never equal a raw one, and no value can close the hash tag early or add key segments.
 */
public final class RedisKeys {

    /** Longest identity kept readable; longer ones are hashed, which bounds every key's length. */
    static final int MAX_RAW_IDENTITY = 64;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private RedisKeys() {
    }

    /** The full key for a policy and identity. */
    public static String key(String prefix, String policy, String identity) {
        // a concatenation (javac's invokedynamic strategy) sizes the bytes once and hands them to the String: one array
        // and the String per decision, where a StringBuilder's buffer is copied again by toString()
        return prefix + ":{" + safeIdentity(identity) + "}:" + policy;
    }

    /**
     * The full key for a policy and identity: {@link #key(String, String, String)}, and for a {@code concurrency}
     * policy that key followed by {@value #IN_FLIGHT}, apart from the rate algorithms' keys (in-flight requests and
     * past rates are different quantities: a policy switched to or from concurrency starts afresh).
     */
    public static String key(String prefix, Policy policy, String identity) {
        return key(prefix, policy.algorithm().holdsLeases() ? policy.name() + IN_FLIGHT : policy.name(), identity);
    }

    /** What ends the key of a concurrency policy. */
    public static final String IN_FLIGHT = ":in-flight";

    /** The suffix of a key's lock-out (a policy's {@code block-for}): the string holding the microsecond it ends at. */
    public static final String LOCKED = ":locked";

    /** The suffix of a key's override (a policy's {@code overrides}): the string {@link KeyOverride#stored} writes. */
    public static final String OVERRIDE = ":override";

    /** The identity as it appears inside the hash tag. */
    public static String safeIdentity(String identity) {
        if (isSafe(identity)) {
            return identity;
        }
        return ":" + sha256Hex(identity, 16);
    }

    /** The hash tag part of a key built by {@link #key}, i.e. what decides its cluster slot. */
    public static String hashTag(String key) {
        int open = key.indexOf('{');
        int close = key.indexOf('}', open + 1);
        return key.substring(open + 1, close);
    }

    private static boolean isSafe(String s) {
        int n = s.length();
        if (n == 0 || n > MAX_RAW_IDENTITY) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c <= ' ' || c >= 0x7f || c == '{' || c == '}' || c == ':') {
                return false;
            }
        }
        return true;
    }

    private static String sha256Hex(String s, int bytes) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            char[] out = new char[bytes * 2];
            for (int i = 0; i < bytes; i++) {
                out[2 * i] = HEX[(d[i] >> 4) & 0xf];
                out[2 * i + 1] = HEX[d[i] & 0xf];
            }
            return new String(out);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }
}
