package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Pattern;

import dev.ratelimit.test.redis.RedisFixture;
import dev.ratelimit.test.redis.RespClient;

/**
 * Looks into the Redis the application decides in (the shared test server).
 */
final class RedisState {

    /** No key may be longer: prefix, a hash tag of at most 64 characters, the policy name. */
    static final int MAX_KEY_LENGTH = 100;

    private static final Pattern KEY = Pattern.compile("rl:\\{([^{}]*)\\}:([A-Za-z0-9_-]+)(?::[A-Za-z0-9_-]+)?");
    private static final Pattern HASHED_TAG = Pattern.compile(":[0-9a-f]{32}");
    private static final Pattern RAW_TAG = Pattern.compile("[\\x21-\\x7e&&[^{}:]]{1,64}");

    private RedisState() {
    }

    /** Forgets every budget, so a test starts from idle keys. */
    static void flush() {
        RedisFixture.shared().flushAll();
    }

    static Object call(String... command) {
        try (RespClient client = RedisFixture.shared().client()) {
            return client.call(command);
        }
    }

    /** Every key matching the pattern, sorted. */
    @SuppressWarnings("unchecked")
    static List<String> keys(String pattern) {
        return new ArrayList<>(new TreeSet<>((List<String>) call("KEYS", pattern)));
    }

    /** The hash tags ({@code {...}}) of the keys of one policy. */
    static List<String> tags(String policy) {
        List<String> tags = new ArrayList<>();
        for (String key : keys("rl:*:" + policy)) {
            var m = KEY.matcher(key);
            assertTrue(m.matches(), "unexpected key shape: " + key);
            tags.add(m.group(1));
        }
        return tags;
    }

    /** The Redis clock, in microseconds. */
    @SuppressWarnings("unchecked")
    static long timeMicros() {
        List<Object> t = (List<Object>) call("TIME");
        return Long.parseLong((String) t.get(0)) * 1_000_000L + Long.parseLong((String) t.get(1));
    }

    /**
     * Waits, if needed, so that at least {@code neededMillis} remain before the next multiple of
     * {@code windowMillis} on the Redis clock (where fixed windows start), so a short burst of
     * requests lands in one window.
     */
    static void awaitWindowStart(long windowMillis, long neededMillis) throws InterruptedException {
        long nowMs = timeMicros() / 1000;
        long left = windowMillis - nowMs % windowMillis;
        if (left < neededMillis) {
            Thread.sleep(left + 20);
        }
    }

    /**
     * Asserts what every key must look like however hostile the input: {@code rl:{<tag>}:<policy>}, at
     * most {@link #MAX_KEY_LENGTH} printable ASCII characters, the tag either short printable ASCII
     * without braces or colons, or {@code :} and 32 hex digits (a hashed identity).
     */
    static List<String> assertAllKeysSafe() {
        List<String> keys = keys("*");
        for (String key : keys) {
            assertTrue(key.length() <= MAX_KEY_LENGTH, "key longer than " + MAX_KEY_LENGTH + ": " + key.length() + " chars");
            assertTrue(key.chars().allMatch(c -> c > 0x20 && c < 0x7f), "key with non-printable or non-ASCII characters: " + key);
            var m = KEY.matcher(key);
            assertTrue(m.matches(), "key not of the form rl:{<identity>}:<policy>: " + key);
            String tag = m.group(1);
            assertTrue(HASHED_TAG.matcher(tag).matches() || RAW_TAG.matcher(tag).matches(),
                    "hash tag neither short printable ASCII nor ':'+32 hex: '" + tag + "'");
        }
        return keys;
    }
}
