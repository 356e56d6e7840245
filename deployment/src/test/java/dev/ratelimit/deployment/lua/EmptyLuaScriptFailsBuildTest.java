package dev.ratelimit.deployment.lua;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/** An empty (blank) Lua source fails the build too: it parses, but a script that does nothing is a packaging bug. */
class EmptyLuaScriptFailsBuildTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = BuildFailures.withLuaSource("dev/ratelimit/lua/empty.lua", " \n\t\n",
            "empty.lua", "empty.lua is broken: it is empty");

    @Test
    void buildFails() {
        fail("the build must fail on an empty Lua script");
    }
}
