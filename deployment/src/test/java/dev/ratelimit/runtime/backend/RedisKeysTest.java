package dev.ratelimit.runtime.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisClusterFixture;

/**
 * Keys are {@code <prefix>:{<identity>}:<policy>}. Client-controlled identities (header values, user names) must
 * not be able to make keys long, choose their cluster slot, add key segments or collide with someone else's key.
 */
public class RedisKeysTest {

    private static final String PREFIX = "rl";
    private static final String POLICY = "api";
    /** prefix + ":{" + ':' + 32 hex digits + "}:" + policy */
    private static final int HASHED_KEY_LENGTH = PREFIX.length() + 2 + 33 + 2 + POLICY.length();

    public static List<String> hostileIdentities() {
        List<String> ids = new ArrayList<>();
        ids.add("x".repeat(10 * 1024));
        ids.add("a".repeat(65)); // just over the readable limit
        ids.add("}");
        ids.add("{");
        ids.add("{}");
        ids.add("victim}{");
        ids.add("}{victim");
        ids.add("{victim}");
        ids.add("alice}:other-policy");
        ids.add("alice:api");
        ids.add(":");
        ids.add("::");
        ids.add("josé");
        ids.add("用户");
        ids.add("😀");
        ids.add("e\u0301"); // combining accent
        ids.add("alice\u0000");
        ids.add("alice\r\nDEL *");
        ids.add("\t");
        ids.add(" alice");
        ids.add("alice ");
        ids.add("");
        ids.add("\u007f");
        ids.add("2001:db8::1"); // IPv6 addresses contain ':' and are hashed too
        return ids;
    }

    @Test
    void plainShortAsciiIdentitiesStayReadable() {
        for (String id : List.of("alice", "203.0.113.7", "user-42", "API_KEY.abc~1", "a".repeat(64))) {
            assertEquals(PREFIX + ":{" + id + "}:" + POLICY, RedisKeys.key(PREFIX, POLICY, id));
        }
    }

    @Test
    void hostileIdentitiesGiveBoundedKeysWithAFixedShape() {
        for (String id : hostileIdentities()) {
            String key = RedisKeys.key(PREFIX, POLICY, id);
            String shown = id.length() > 40 ? id.substring(0, 40) + "..." : id;
            assertEquals(HASHED_KEY_LENGTH, key.length(), () -> "length of the key for '" + shown + "': " + key);
            assertTrue(key.matches("rl:\\{:[0-9a-f]{32}\\}:api"), () -> "'" + shown + "' gave " + key);
        }
    }

    @Test
    void hashTagCannotBeSteered() {
        for (String id : hostileIdentities()) {
            String key = RedisKeys.key(PREFIX, POLICY, id);
            // Redis Cluster hashes what lies between the first '{' and the next '}'
            assertEquals(1, key.chars().filter(c -> c == '{').count(), key);
            assertEquals(1, key.chars().filter(c -> c == '}').count(), key);
            String tag = RedisKeys.hashTag(key);
            assertEquals(RedisKeys.safeIdentity(id), tag);
            assertEquals(RedisClusterFixture.slot("{" + tag + "}"), RedisClusterFixture.slot(key));
        }
        // "victim}{" cannot land in victim's slot by closing the tag early
        assertNotEquals(RedisKeys.hashTag(RedisKeys.key(PREFIX, POLICY, "victim")),
                RedisKeys.hashTag(RedisKeys.key(PREFIX, POLICY, "}{victim")));
        // every policy of one identity shares a slot, whatever the identity
        for (String id : hostileIdentities()) {
            assertEquals(RedisClusterFixture.slot(RedisKeys.key(PREFIX, "a", id)),
                    RedisClusterFixture.slot(RedisKeys.key(PREFIX, "b", id)));
        }
    }

    @Test
    void identitiesNeverCollide() {
        List<String> ids = new ArrayList<>(hostileIdentities());
        ids.addAll(List.of("alice", "203.0.113.7", "victim"));
        // an identity equal to the hashed form of another, with and without its leading ':'
        String hashed = RedisKeys.safeIdentity("josé");
        ids.add(hashed);
        ids.add(hashed.substring(1));
        ids.add("{" + hashed + "}");
        // near misses: case, normalisation, trailing bytes
        ids.addAll(List.of("Alice", "alice\u0000", "alice\u0001", "jose\u0301", "x".repeat(10 * 1024 - 1),
                "x".repeat(10 * 1024) + "y"));
        Random random = new Random(11);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder b = new StringBuilder();
            int n = random.nextInt(12);
            for (int j = 0; j < n; j++) {
                b.append((char) (random.nextBoolean() ? 32 + random.nextInt(95) : random.nextInt(0x3000)));
            }
            ids.add(b.toString());
        }
        Map<String, String> byKey = new HashMap<>();
        for (String id : ids) {
            String key = RedisKeys.key(PREFIX, POLICY, id);
            String previous = byKey.putIfAbsent(key, id);
            assertTrue(previous == null || previous.equals(id),
                    () -> "'" + previous + "' and '" + id + "' share the key " + key);
        }
        // the hashed form of an identity, used as an identity, is hashed again: never the original's key
        assertNotEquals(RedisKeys.key(PREFIX, POLICY, "josé"), RedisKeys.key(PREFIX, POLICY, hashed));
        assertEquals(PREFIX + ":{" + hashed.substring(1) + "}:" + POLICY,
                RedisKeys.key(PREFIX, POLICY, hashed.substring(1)), "the bare hex is a readable identity of its own");
    }
}
