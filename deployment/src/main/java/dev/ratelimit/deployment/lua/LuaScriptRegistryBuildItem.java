package dev.ratelimit.deployment.lua;

import java.util.Map;

import io.quarkus.builder.item.SimpleBuildItem;

/**
 * The composed, checked scripts and their SHA-1 digests, ready to be recorded.
 */
public final class LuaScriptRegistryBuildItem extends SimpleBuildItem {

    private final Map<String, String> bodies;
    private final Map<String, String> shas;

    public LuaScriptRegistryBuildItem(Map<String, String> bodies, Map<String, String> shas) {
        this.bodies = bodies;
        this.shas = shas;
    }

    /** Script name to body, sorted by name. */
    public Map<String, String> bodies() {
        return bodies;
    }

    /** Script name to lowercase hex SHA-1 of its body, as Redis reports it. */
    public Map<String, String> shas() {
        return shas;
    }
}
