package dev.ratelimit.runtime.backend.redis.script;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A script as recorded at build time.
 *
 * @param name the registry name, e.g. {@code decide} or {@code decide/gcra}
 * @param body the Lua source sent with {@code EVAL} (and {@code SCRIPT LOAD})
 * @param sha the SHA-1 of the body, lowercase hex, as Redis reports it
 * @param function the function of the extension's {@link FunctionLibrary} that does what this script does, called
 *        with {@code FCALL} where the library is loaded; null for a script that is only ever run as a script
 */
public record LuaScript(String name, String body, String sha, String function) {

    /** A script with no function form. */
    public LuaScript(String name, String body, String sha) {
        this(name, body, sha, null);
    }

    /** SHA-1 of a text, lowercase hex: for a script's body, the name Redis gives the script. */
    public static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by every Java platform", e);
        }
    }
}
