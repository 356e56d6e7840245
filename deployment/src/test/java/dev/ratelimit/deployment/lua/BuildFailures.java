package dev.ratelimit.deployment.lua;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.IdentityHashMap;
import java.util.Map;

import io.quarkus.builder.BuildContext;
import io.quarkus.builder.BuildStep;
import io.quarkus.test.QuarkusUnitTest;

/** Build failures arrive wrapped; the messages of the whole cause chain are what a user reads. */
final class BuildFailures {

    private BuildFailures() {
    }

    /** An application whose build is given one more Lua source, and must fail saying each of {@code says}. */
    static QuarkusUnitTest withLuaSource(String path, String body, String... says) {
        return new QuarkusUnitTest()
                .withEmptyApplication()
                .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
                .addBuildChainCustomizer(chain -> chain.addBuildStep(new BuildStep() {
                    @Override
                    public void execute(BuildContext context) {
                        context.produce(new LuaScriptSourceBuildItem(path, body));
                    }
                }).produces(LuaScriptSourceBuildItem.class).build())
                .assertException(t -> {
                    String messages = messages(t);
                    for (String s : says) {
                        assertTrue(messages.contains(s), messages);
                    }
                });
    }

    static String messages(Throwable t) {
        StringBuilder all = new StringBuilder();
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable c = t; c != null && seen.put(c, true) == null; c = c.getCause()) {
            all.append(c.getClass().getName()).append(": ").append(c.getMessage()).append('\n');
            for (Throwable s : c.getSuppressed()) {
                all.append("  suppressed ").append(messages(s));
            }
        }
        return all.toString();
    }
}
