package dev.ratelimit.it;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;

import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class SmokeTest {

    @Test
    void tokenBucketAdmitsBurstThenDenies() {
        for (int i = 0; i < 3; i++) {
            given().get("/algorithms/token-bucket").then().statusCode(200).header("RateLimit", notNullValue());
        }
        given().get("/algorithms/token-bucket").then().statusCode(429).header("Retry-After", equalTo("1"));
    }
}
