package dev.ratelimit.deployment.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * Path policies match the path Quarkus REST routed on, read the way routing reads it: the full path (root path and
 * REST path included), percent-decoded, matrix parameters removed. Characters routing keeps encoded (a space,
 * non-ASCII) are decoded for the match; an encoded slash stays inside its segment as it does for routing, unless
 * matrix parameters made Quarkus REST decode it into a separator first; a double encoding behind matrix parameters
 * reaches the same resource, and the same policies, as a single one.
 */
class RoutedPathTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = policies(new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Files.class, Literal.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.http.root-path", "/app")
            .overrideConfigKey("quarkus.rest.path", "/rest"),
            "spaced", "/app/rest/files/a b",
            "accented", "/app/rest/files/caf\u00e9",
            "nested", "/app/rest/files/a/b",
            "under-a", "/app/rest/files/a/*",
            "files", "/app/rest/files/*",
            "literal", "/app/rest/literal/a b,/app/rest/literal/caf\u00e9",
            // without the root and REST paths: never the path of a request
            "unprefixed", "/files/*,/rest/files/*");

    private static QuarkusUnitTest policies(QuarkusUnitTest test, String... namesAndPaths) {
        for (int i = 0; i < namesAndPaths.length; i += 2) {
            String prefix = "quarkus.ratelimit.policies." + namesAndPaths[i] + ".";
            test.overrideConfigKey(prefix + "paths", namesAndPaths[i + 1])
                    .overrideConfigKey(prefix + "limit", "1000")
                    .overrideConfigKey(prefix + "window", "1m");
        }
        return test;
    }

    @Path("/files")
    public static class Files {

        @GET
        @Path("/{name}")
        public String file(@PathParam("name") String name) {
            return "file " + name;
        }

        @GET
        @Path("/{dir}/{name}")
        public String nested(@PathParam("dir") String dir, @PathParam("name") String name) {
            return "nested " + dir + " " + name;
        }
    }

    /** Literal paths with characters routing compares encoded (the space) and as they are (the accent). */
    @Path("/literal")
    public static class Literal {

        @GET
        @Path("/a b")
        public String spaced() {
            return "literal a b";
        }

        @GET
        @Path("/caf\u00e9")
        public String accented() {
            return "literal caf\u00e9";
        }
    }

    /** A request target, the resource's answer it must reach, and the policies it must be decided by. */
    record Case(String target, String body, Set<String> policies) {
        Case(String target, String body, String... policies) {
            this(target, body, new TreeSet<>(List.of(policies)));
        }
    }

    @Test
    void everySpellingMeetsThePoliciesOfThePathRoutingMatched() {
        List<Case> cases = List.of(
                new Case("/app/rest/files/a%20b", "file a b", "spaced", "files"),
                new Case("/app/rest/files/a%20b;x=1", "file a b", "spaced", "files"),
                // behind matrix parameters Quarkus REST decodes twice: %2520 is a space for the resource too
                new Case("/app/rest/files/a%2520b;x=1", "file a b", "spaced", "files"),
                new Case("/app/rest/files/a%2520b", "file a%20b", "files"),
                new Case("/app/rest/files/caf%C3%A9", "file caf\u00e9", "accented", "files"),
                new Case("/app/rest/files/caf%c3%a9;v=1", "file caf\u00e9", "accented", "files"),
                new Case("/app/rest/files/a/b", "nested a b", "nested", "under-a", "files"),
                new Case("/app//rest/./files/x/../a;v=1/b", "nested a b", "nested", "under-a", "files"),
                // an encoded slash is no separator for routing: one segment, not /files/a/b
                new Case("/app/rest/files/a%2Fb", "file a/b", "files"),
                new Case("/app/rest/files/a%2fb", "file a/b", "files"),
                new Case("/app/rest/files/a%252Fb;x=1", "file a/b", "files"),
                // unless matrix parameters make Quarkus REST decode it into a separator before routing
                new Case("/app/rest/files/a%2Fb;x=1", "nested a b", "nested", "under-a", "files"),
                new Case("/app/rest/files/a", "file a", "under-a", "files"),
                new Case("/app/rest/files/..;x=1/a", "nested .. a", "files"),
                new Case("/app/rest/literal/a%20b", "literal a b", "literal"),
                new Case("/app/rest/literal/a%2520b;x=1", "literal a b", "literal"),
                new Case("/app/rest/literal/caf%C3%A9;x=1", "literal caf\u00e9", "literal"));
        List<String> wrong = new ArrayList<>();
        for (Case c : cases) {
            Reply r = get(c.target);
            if (r.status != 200 || !r.body.equals(c.body)) {
                wrong.add(c.target + " did not reach the resource: " + r.status + " " + r.body);
            } else if (!r.policies().equals(c.policies)) {
                wrong.add(c.target + " decided by " + r.policies() + ", expected " + c.policies);
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    @Test
    void spellingsThatRouteNowhereAreAnsweredWithoutTheFilter() {
        // matrix parameters on the root or REST path, an encoding routing compares unencoded, bad escapes
        for (String target : List.of("/app;v=1/rest/files/a/b", "/app/rest;v=1/files/a/b", "/app/rest/literal/caf%C3%A9",
                "/app/rest/literal/a%20b;x=1", "/app/rest/files/a%zzb", "/app/rest/files/a%", "/files/a")) {
            Reply r = get(target);
            assertTrue(r.status == 404 || r.status == 400, target + " answered " + r.status + " " + r.body);
            assertEquals(Set.of(), r.policies(), target);
        }
    }

    record Reply(int status, String rateLimit, String body) {
        /** The policies named in the RateLimit field. */
        Set<String> policies() {
            Set<String> names = new TreeSet<>();
            if (rateLimit != null) {
                for (String member : rateLimit.split(",\\s*")) {
                    names.add(member.substring(1, member.indexOf('"', 1)));
                }
            }
            return names;
        }
    }

    /** The request target exactly as written (HTTP clients normalize or refuse most of these), as UTF-8. */
    private static Reply get(String target) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), RestAssured.port)) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            String text = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            String[] head = text.substring(0, end).split("\r\n");
            String rateLimit = null;
            for (String line : head) {
                if (line.toLowerCase(Locale.ROOT).startsWith("ratelimit:")) {
                    rateLimit = line.substring(line.indexOf(':') + 1).trim();
                }
            }
            return new Reply(Integer.parseInt(head[0].split(" ")[1]), rateLimit, text.substring(end + 4));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
