package dev.ratelimit.runtime.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Source;

class ProblemBodyTest {

    private static PolicyDecision policy(String name, boolean allowed, boolean shadow, long retrySeconds) {
        return new PolicyDecision(name, 10, Duration.ofMinutes(1), allowed, allowed ? 3 : 0,
                Duration.ofSeconds(retrySeconds), Duration.ofSeconds(5), shadow);
    }

    @Test
    void aDenialNamesTheEnforcedPoliciesOverTheirQuota() {
        RateLimitDecision d = new RateLimitDecision(false, List.of(policy("per-second", false, false, 1),
                policy("dark \"launch\"", false, true, 9), policy("hourly", false, false, 30), policy("ok", true, false, 0)),
                Source.REDIS);
        assertEquals("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                + "\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"Rate limit exceeded\","
                + "\"violated-policies\":[\"per-second\",\"hourly\"],\"policy\":\"hourly\",\"retryAfter\":30}",
                RateLimitHeaders.problemBody(d, 429));
    }

    @Test
    void aFailClosedDenialSaysTheLimiterIsUnavailable() {
        RateLimitDecision d = new RateLimitDecision(false, List.of(policy("api", false, false, 1)), Source.FAILED_CLOSED);
        assertEquals("{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,"
                + "\"detail\":\"Rate limiting is unavailable\",\"policy\":\"api\",\"retryAfter\":1}",
                RateLimitHeaders.problemBody(d, 503));
        assertEquals("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Rate limiting is unavailable\",\"policy\":\"api\",\"retryAfter\":1}",
                RateLimitHeaders.problemBody(d, 429));
    }
}
