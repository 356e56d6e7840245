package dev.ratelimit.runtime.algorithm;

import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.policy.Policy;

/** The scenario table against the in-process backend (plain JUnit: it needs no Quarkus). */
class LocalAlgorithmScenariosTest extends AlgorithmScenarios {

    private final LocalBackend backend = new LocalBackend();

    @Override
    protected long[] decide(Policy[] policies, String[] keys, long[] costs, long nowMicros, boolean dryRun) {
        // through the interface, as the limiter calls it
        return backend.decide(policies, keys, costs, nowMicros, dryRun).await().indefinitely().toScriptOrder();
    }

    @Override
    protected String backendName() {
        return "local";
    }
}
