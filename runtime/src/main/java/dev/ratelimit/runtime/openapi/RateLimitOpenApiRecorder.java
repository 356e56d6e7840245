package dev.ratelimit.runtime.openapi;

import java.util.List;

import io.quarkus.runtime.annotations.Recorder;

/**
 * Hands the limited REST operations the build found to the OpenAPI filter. References nothing of the OpenAPI API,
 * which the application may not have.
 */
@Recorder
public class RateLimitOpenApiRecorder {

    /** Forgets the operations of a previous (dev-mode) build. */
    public void clear() {
        AnnotatedOperations.clear();
    }

    /** Records the policies the annotations of one operation name. */
    public void operation(String method, String path, List<String> policies) {
        AnnotatedOperations.add(method, path, policies);
    }
}
