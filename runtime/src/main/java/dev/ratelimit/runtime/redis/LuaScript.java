package dev.ratelimit.runtime.redis;

/**
 * A script as recorded at build time.
 *
 * @param name the registry name, e.g. {@code decide} or {@code decide/gcra}
 * @param body the Lua source sent with {@code EVAL} (and {@code SCRIPT LOAD})
 * @param sha the SHA-1 of the body, lowercase hex, as Redis reports it
 */
public record LuaScript(String name, String body, String sha) {
}
