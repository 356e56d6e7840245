package dev.ratelimit.deployment.lua;

import io.quarkus.builder.item.MultiBuildItem;

/**
 * One Lua source file of the extension, as read from the runtime module's resources.
 */
public final class LuaScriptSourceBuildItem extends MultiBuildItem {

    private final String path;
    private final String body;

    public LuaScriptSourceBuildItem(String path, String body) {
        this.path = path;
        this.body = body;
    }

    /** The resource path, e.g. {@code dev/ratelimit/lua/gcra.lua}; error messages name it. */
    public String path() {
        return path;
    }

    /** The file's text. */
    public String body() {
        return body;
    }
}
