package dev.ratelimit.deployment.lua;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/** A Lua source that does not parse fails the build, and the message names the file. */
class BrokenLuaScriptFailsBuildTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = BuildFailures.withLuaSource("dev/ratelimit/lua/broken.lua", "local x = = 1",
            "broken.lua", "Invalid rate-limit Lua scripts");

    @Test
    void buildFails() {
        fail("the build must fail on a broken Lua script");
    }
}
