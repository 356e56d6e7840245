package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.restassured.response.Response;

/**
 * Reads the rate-limit fields of a response: {@code RateLimit-Policy: "api";q=100;w=60} and
 * {@code RateLimit: "api";r=42;t=17} (draft-ietf-httpapi-ratelimit-headers), several members
 * separated by commas, and the legacy {@code X-RateLimit-*} fields.
 */
final class RateLimitHeaders {

    private static final Pattern MEMBER = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"((?:;[a-z]+=-?\\d+)*)");
    private static final Pattern PARAM = Pattern.compile(";([a-z]+)=(-?\\d+)");

    private RateLimitHeaders() {
    }

    /** The members of a structured-field list, by policy name, each with its parameters. Fails on any other text. */
    static Map<String, Map<String, Long>> parse(String field) {
        assertNotNull(field, "rate-limit field missing");
        Map<String, Map<String, Long>> members = new LinkedHashMap<>();
        for (String item : field.split(",\\s*")) {
            Matcher m = MEMBER.matcher(item.trim());
            if (!m.matches()) {
                fail("Not a draft-ietf-httpapi-ratelimit-headers member: '" + item + "' in '" + field + "'");
            }
            Map<String, Long> params = new LinkedHashMap<>();
            Matcher p = PARAM.matcher(m.group(2));
            while (p.find()) {
                params.put(p.group(1), Long.parseLong(p.group(2)));
            }
            members.put(m.group(1), params);
        }
        return members;
    }

    /** {@code r} and {@code t} of one policy in the {@code RateLimit} field. */
    static long[] state(Response response, String policy) {
        Map<String, Long> member = parse(response.header("RateLimit")).get(policy);
        assertNotNull(member, "no member for policy '" + policy + "' in RateLimit: " + response.header("RateLimit"));
        assertEquals(2, member.size(), "RateLimit member must carry exactly r and t: " + response.header("RateLimit"));
        return new long[] { member.get("r"), member.get("t") };
    }

    static long remaining(Response response, String policy) {
        return state(response, policy)[0];
    }

    static long reset(Response response, String policy) {
        return state(response, policy)[1];
    }

    /** Asserts the {@code RateLimit-Policy} member of a policy: {@code "<name>";q=<limit>;w=<window seconds>}. */
    static void assertPolicy(Response response, String policy, long quota, long windowSeconds) {
        Map<String, Long> member = parse(response.header("RateLimit-Policy")).get(policy);
        assertNotNull(member, "no member for '" + policy + "' in RateLimit-Policy: " + response.header("RateLimit-Policy"));
        assertEquals(Map.of("q", quota, "w", windowSeconds), member,
                "RateLimit-Policy of '" + policy + "': " + response.header("RateLimit-Policy"));
    }

    static long longHeader(Response response, String name) {
        String v = response.header(name);
        assertNotNull(v, name + " missing; headers: " + response.headers());
        assertTrue(v.matches("\\d+"), name + " must be a non-negative integer, was '" + v + "'");
        return Long.parseLong(v);
    }

    /** Retry-After as the contract wants it: delta-seconds, at least 1. */
    static long retryAfter(Response response) {
        long v = longHeader(response, "Retry-After");
        assertTrue(v >= 1, "Retry-After must never be 0");
        return v;
    }

    static void assertNoRateLimitHeaders(Response response) {
        for (String name : new String[] { "RateLimit", "RateLimit-Policy", "X-RateLimit-Limit", "X-RateLimit-Remaining",
                "X-RateLimit-Reset" }) {
            assertNull(response.header(name), name + " must not be sent here; headers: " + response.headers());
        }
    }
}
