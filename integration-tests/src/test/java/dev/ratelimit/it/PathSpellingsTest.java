package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Path policies over real HTTP, against every spelling of a path a client can put on the request
 * line: matrix parameters on any segment, percent-encoded characters (letters, dots, slashes,
 * semicolons), empty, {@code .} and {@code ..} segments, a trailing slash, letter case, a query, the
 * absolute form. Whatever Quarkus REST does with a spelling, a spelling that reaches a resource
 * method is charged to, and checked against, the policies of the path that routing matched. A
 * spelling that routes nowhere (404) is not required to count, but must not fail.
 * <p>
 * {@code login}: exact path {@code /api/login}; {@code docs}: prefix {@code /docs/*}; both 3 per
 * minute per address (a sliding log, so nothing refills during the test).
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class PathSpellingsTest {

    private static final int LIMIT = 3;

    /** Spellings of {@code /api/login} that Quarkus REST routes to the sign-in page. */
    static final List<String> LOGIN_ROUTED = List.of(
            "/api/login",
            "/api/login;x=1",
            "/api;v=1/login",
            "/api;v=1/login;x=2",
            "/api/login;",
            "/api;/login",
            "/api/login;jsessionid=0123ABCD",
            "/api/login;x=%2F",
            "/api/logi%6E",
            "/api/logi%6e",
            "/%61pi/login",
            "/api/logi%6E;x=1",
            "//api/login",
            "/api//login",
            "/./api/login",
            "/api/./login",
            "/x/../api/login",
            "/api/x/../login",
            "/api/%2e/login",
            "/api/x/%2E%2E/login",
            "/api/login?x=1",
            "/api/login;x=1?y=2",
            "http://localhost/api/login");

    /** Spellings of {@code /api/login} that may or may not route, depending on Quarkus REST: if they do, they count. */
    static final List<String> LOGIN_OTHER = List.of(
            "/api/login/",
            "/api/login;x=1/",
            "/api/login/x/..",
            "/api%2Flogin",
            "/api%2flogin",
            "/api/login%2F",
            "/%2Fapi/login",
            "/api/login%3Bx=1",
            "/api/login%3B",
            "/api/login%20",
            "/api/login#frag",
            "/api/..;/api/login",
            "/API/login",
            "/api/LOGIN",
            "/Api/Login",
            "/api/login.",
            "/api/login..",
            "/api/x/..%2Flogin");

    /** Spellings under {@code /docs/} that Quarkus REST routes to a documentation page. */
    static final List<String> DOCS_ROUTED = List.of(
            "/docs/intro",
            "/docs;v=1/intro",
            "/docs;/intro",
            "/docs/intro;x=1",
            "/docs/guide/intro",
            "/docs;v=1/guide;v=2/intro;v=3",
            "/%64ocs/intro",
            "/doc%73/intro",
            "//docs/intro",
            "/x/../docs/intro",
            "/./docs/intro",
            "/docs/%2e%2e/docs/intro",
            "/docs",
            "/docs;v=1");

    /** Spellings around {@code /docs} that may or may not route: if they do, they count. */
    static final List<String> DOCS_OTHER = List.of(
            "/docs/",
            "/docs;v=1/",
            "/docs/intro/",
            "/docs/a%2Fb",
            "/docs/a%2Fb;x=1",
            "/docs%2Fintro",
            "/docs//intro",
            "/docs/..;/api/login",
            "/DOCS/intro",
            "/Docs/intro");

    TestClient client;

    @BeforeEach
    void idle() {
        client = TestClient.fresh();
        RedisState.flush();
    }

    @Test
    void everySpellingOfAnExactPathThatReachesTheResourceIsChargedAndChecked() {
        List<String> failures = new ArrayList<>();
        List<String> routed = new ArrayList<>();
        for (String spelling : concat(LOGIN_ROUTED, LOGIN_OTHER)) {
            if (chargedAndChecked(spelling, "/api/login", "login", "sign in", failures)) {
                routed.add(spelling);
            }
        }
        assertTrue(failures.isEmpty(), "spellings that escape the login policy (exact /api/login):\n  "
                + String.join("\n  ", failures));
        assertTrue(routed.containsAll(LOGIN_ROUTED), "expected to reach the resource: " + LOGIN_ROUTED
                + "; reached it: " + routed);
    }

    @Test
    void everySpellingUnderAPrefixThatReachesAResourceIsChargedAndChecked() {
        List<String> failures = new ArrayList<>();
        List<String> routed = new ArrayList<>();
        for (String spelling : concat(DOCS_ROUTED, DOCS_OTHER)) {
            if (chargedAndChecked(spelling, "/docs/intro", "docs", "doc", failures)) {
                routed.add(spelling);
            }
        }
        assertTrue(failures.isEmpty(), "spellings that escape the docs policy (prefix /docs/*):\n  "
                + String.join("\n  ", failures));
        assertTrue(routed.containsAll(DOCS_ROUTED), "expected to reach a resource: " + DOCS_ROUTED
                + "; reached one: " + routed);
    }

    /**
     * One client spells the path every way in turn: the first {@value #LIMIT} requests that reach the
     * resource are admitted, every later one is denied, whatever its spelling.
     */
    @Test
    void oneClientGetsTheLimitWhateverTheSpellings() {
        int admitted = 0;
        int denied = 0;
        for (String spelling : concat(LOGIN_ROUTED, LOGIN_OTHER)) {
            RawHttp.Reply r = RawHttp.get(client.address(), spelling);
            assertTrue(r.status() < 500, spelling + " answered " + r.status() + " " + r.body());
            if (r.status() == 200) {
                admitted++;
            } else if (r.status() == 429) {
                denied++;
            }
        }
        assertEquals(LIMIT, admitted, "requests that reached /api/login were admitted beyond the limit");
        assertTrue(denied >= LOGIN_ROUTED.size() - LIMIT, denied + " denials");
    }

    /**
     * With a fresh budget: {@code spelling} first (must be charged: the canonical path then finds one
     * unit less), the canonical path up to the limit, then {@code spelling} again (must be denied).
     * Returns whether the spelling reached a resource method; adds a line to {@code failures} when it
     * escaped the policy.
     */
    private boolean chargedAndChecked(String spelling, String canonical, String policy, String body,
            List<String> failures) {
        TestClient own = TestClient.fresh();
        RawHttp.Reply first = RawHttp.get(own.address(), spelling);
        assertTrue(first.status() < 500, spelling + " answered " + first.status() + " " + first.body());
        if (first.status() != 200) {
            assertEquals(404, first.status(), spelling + " neither reached the resource nor was unknown: " + first.body());
            return false;
        }
        assertTrue(first.body().startsWith(body), spelling + " reached another resource: " + first.body());
        String charged = remaining(first, policy);
        if (!("" + (LIMIT - 1)).equals(charged)) {
            failures.add(spelling + " -> 200, not charged (RateLimit: " + first.header("RateLimit") + ")");
            return true;
        }
        for (int i = 2; i <= LIMIT; i++) {
            RawHttp.Reply r = RawHttp.get(own.address(), canonical);
            assertEquals(200, r.status(), canonical);
            assertEquals("" + (LIMIT - i), remaining(r, policy), canonical + " after " + spelling);
        }
        RawHttp.Reply again = RawHttp.get(own.address(), spelling);
        if (again.status() != 429) {
            failures.add(spelling + " -> " + again.status() + " once the budget was spent, not 429");
        }
        return true;
    }

    /** {@code r} of the policy's member of the RateLimit field, or a note of its absence. */
    private static String remaining(RawHttp.Reply r, String policy) {
        String field = r.header("RateLimit");
        if (field == null || !field.contains("\"" + policy + "\"")) {
            return "(no " + policy + " member)";
        }
        return Long.toString(RateLimitHeaders.parse(field).get(policy).get("r"));
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
