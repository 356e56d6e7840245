package dev.ratelimit.deployment.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.deployment.lua.LuaScriptSourceBuildItem;
import io.quarkus.builder.BuildContext;
import io.quarkus.builder.BuildStep;
import io.quarkus.test.QuarkusUnitTest;

/** An empty (blank) Lua source fails the build too: it parses, but a script that does nothing is a packaging bug. */
class EmptyLuaScriptFailsBuildTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withEmptyApplication()
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .addBuildChainCustomizer(chain -> chain.addBuildStep(new BuildStep() {
                @Override
                public void execute(BuildContext context) {
                    context.produce(new LuaScriptSourceBuildItem("dev/ratelimit/lua/empty.lua", " \n\t\n"));
                }
            }).produces(LuaScriptSourceBuildItem.class).build())
            .assertException(t -> {
                String messages = BuildFailures.messages(t);
                assertTrue(messages.contains("empty.lua"), messages);
                assertTrue(messages.contains("empty.lua is broken: it is empty"), messages);
            });

    @Test
    void buildFails() {
        fail("the build must fail on an empty Lua script");
    }
}
