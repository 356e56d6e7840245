package dev.ratelimit.runtime.devui;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RateLimitJsonRpcServiceTest {

    @Test
    void theRedisAddressIsShownWithoutCredentials() {
        assertEquals("redis://localhost:6379", RateLimitJsonRpcService.withoutCredentials("redis://localhost:6379"));
        assertEquals("redis://redis:6379/0", RateLimitJsonRpcService.withoutCredentials("redis://:s3cret@redis:6379/0"));
        assertEquals("rediss://a:6380,redis://b:6379",
                RateLimitJsonRpcService.withoutCredentials("rediss://user:p@ss@a:6380,redis://u:x@b:6379"));
    }
}
