package dev.ratelimit.deployment.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.runtime.RateLimitRecorder;
import dev.ratelimit.runtime.backend.redis.script.LuaScript;
import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;
import io.quarkus.arc.Arc;
import io.quarkus.builder.BuildContext;
import io.quarkus.builder.BuildStep;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A script longer than a class-file constant holds (65,535 bytes) is recorded and reaches the runtime whole: the batch
 * script holding every algorithm is about that long, and the recorder refused it outright ("String too large to
 * record"). Here a script of about 70,000 bytes, non-ASCII comments and a line longer than a recorded piece, with a
 * character of two UTF-16 halves where that line is cut.
 */
class LongScriptsRecordedTest {

    static final String PATH = "dev/ratelimit/test/long.lua";
    static final String BODY = longScript();

    static String longScript() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; sb.length() < 20_000; i++) {
            sb.append("-- ").append(i).append(" décision µs — 決定\n"); // 2 and 3 bytes per character
        }
        int line = sb.length(); // a piece ends here, at the line end before it
        sb.append("local s = '");
        while (sb.length() < line + RateLimitRecorder.PIECE_CHARS - 1) {
            sb.append('a');
        }
        sb.append("😀"); // its halves on either side of the line's first cut, were it cut by length alone
        for (int i = 0; i < 30_000; i++) {
            sb.append('b');
        }
        sb.append("'\n");
        return sb.append("return #s\n").toString();
    }

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withEmptyApplication()
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .addBuildChainCustomizer(chain -> chain.addBuildStep(new BuildStep() {
                @Override
                public void execute(BuildContext context) {
                    context.produce(new LuaScriptSourceBuildItem(PATH, BODY));
                }
            }).produces(LuaScriptSourceBuildItem.class).build());

    @Test
    void aScriptOverAClassConstantReachesTheRuntimeWhole() {
        assertTrue(BODY.getBytes(StandardCharsets.UTF_8).length > 65_535);
        LuaScript s = Arc.container().instance(LuaScriptRegistry.class).get().get(PATH);
        assertEquals(BODY, s.body());
        assertEquals(LuaScript.sha1(BODY), s.sha());
        // and the extension's own scripts, the longest among them
        LuaScript batch = Arc.container().instance(LuaScriptRegistry.class).get().get(LuaScriptRegistry.BATCH);
        assertTrue(batch.body().length() > 60_000, "batch script: " + batch.body().length() + " characters");
        assertEquals(LuaScript.sha1(batch.body()), batch.sha());
    }

    @Test
    void piecesJoinToTheBodyAndNoneSplitsACharacter() {
        List<String> pieces = RateLimitRecorder.pieces(BODY);
        assertEquals(BODY, String.join("", pieces));
        assertTrue(pieces.size() >= 5, "pieces: " + pieces.size());
        for (String p : pieces) {
            assertTrue(p.length() <= RateLimitRecorder.PIECE_CHARS);
            assertTrue(p.getBytes(StandardCharsets.UTF_8).length < 65_535);
            assertFalse(Character.isHighSurrogate(p.charAt(p.length() - 1)), "a piece ends inside a character");
        }
    }
}
