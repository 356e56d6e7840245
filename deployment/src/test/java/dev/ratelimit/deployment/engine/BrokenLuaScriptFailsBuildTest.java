package dev.ratelimit.deployment.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.deployment.lua.LuaScriptSourceBuildItem;
import io.quarkus.builder.BuildContext;
import io.quarkus.builder.BuildStep;
import io.quarkus.test.QuarkusUnitTest;

/** A Lua source that does not parse fails the build, and the message names the file. */
class BrokenLuaScriptFailsBuildTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withEmptyApplication()
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .addBuildChainCustomizer(chain -> chain.addBuildStep(new BuildStep() {
                @Override
                public void execute(BuildContext context) {
                    context.produce(new LuaScriptSourceBuildItem("dev/ratelimit/lua/broken.lua", "local x = = 1"));
                }
            }).produces(LuaScriptSourceBuildItem.class).build())
            .assertException(t -> {
                String messages = BuildFailures.messages(t);
                assertTrue(messages.contains("broken.lua"), messages);
                assertTrue(messages.contains("Invalid rate-limit Lua scripts"), messages);
            });

    @Test
    void buildFails() {
        fail("the build must fail on a broken Lua script");
    }
}
