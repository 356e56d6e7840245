package dev.ratelimit.runtime.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The Dev UI's tally passes every report on: in dev mode the limiter reports through it, and a method it did not
 * override would fall to the interface's default, which does nothing (settlements, overrides and leases went missing
 * from Micrometer in dev mode that way).
 */
class DecisionTallyTest {

    @Test
    void everyReportIsPassedOn() throws Exception {
        List<String> received = new ArrayList<>();
        RateLimitMetrics next = (RateLimitMetrics) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] { RateLimitMetrics.class }, (proxy, method, args) -> {
                    received.add(method.getName());
                    return null;
                });
        RateLimitMetrics counting = new DecisionTally().counting(next);
        List<String> expected = new ArrayList<>();
        for (Method m : RateLimitMetrics.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            Object[] args = new Object[m.getParameterCount()];
            Class<?>[] types = m.getParameterTypes();
            for (int i = 0; i < args.length; i++) {
                args[i] = types[i] == long.class ? 1L : types[i] == boolean.class ? false
                        : types[i] == RateLimitMetrics.Outcome.class ? RateLimitMetrics.Outcome.ALLOWED
                                : types[i] == String.class ? "p" : types[i] == int.class ? 1 : null;
            }
            if (m.getName().equals("register")) {
                args[0] = List.of();
            }
            m.invoke(counting, args);
            expected.add(m.getName());
        }
        assertEquals(expected, received);
    }
}
