package dev.ratelimit.runtime.redis;

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
}
