package dev.ratelimit.runtime.http;

import java.util.Map;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.ratelimit.RateLimitSettlement;
import dev.ratelimit.Reservation;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * The reservations of the calls running now, for {@link RateLimitSettlement}: an HTTP request's (the filter's, kept on
 * the request) and a synchronous bean method's (the interceptor's, on its thread while the method runs).
 */
@Singleton
public class Settlements implements RateLimitSettlement {

    private static final Logger LOG = Logger.getLogger(Settlements.class);

    /** Routing-context key of the filter's reservation of the current request. */
    public static final String RESERVATION = "dev.ratelimit.reservation";

    private static final ThreadLocal<Reservation> CURRENT = new ThreadLocal<>();

    private final CurrentVertxRequest currentRequest;

    Settlements(CurrentVertxRequest currentRequest) {
        this.currentRequest = currentRequest;
    }

    /** {@code r} is the reservation of the method about to run on this thread; returns the one it hides. */
    public static Reservation enter(Reservation r) {
        Reservation before = CURRENT.get();
        CURRENT.set(r);
        return before;
    }

    /** The method that {@link #enter} ran for has ended: {@code before} is current again. */
    public static void exit(Reservation before) {
        if (before == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(before);
        }
    }

    @Override
    public void settle(String policy, long actualCost) {
        Reservation r = CURRENT.get();
        if (r == null || !r.reserved(policy)) {
            RoutingContext rc = HttpLimits.current(currentRequest);
            Reservation held = rc == null ? null : rc.get(RESERVATION);
            r = held != null && held.reserved(policy) ? held : null;
        }
        if (r == null) {
            throw new IllegalStateException("The current call reserved nothing of rate-limit policy '" + policy
                    + "': settle from the method annotated @RateLimit(value = \"" + policy
                    + "\", settle = true), on the thread it runs on (or reserve with RateLimiter.reserve)");
        }
        r.settle(Map.of(policy, actualCost)).subscribe().with(ignored -> {
        }, failure -> LOG.debugf(failure, "The settlement of policy '%s' failed: its estimate stays charged", policy));
    }
}
