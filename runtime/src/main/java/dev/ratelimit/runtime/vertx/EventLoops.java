package dev.ratelimit.runtime.vertx;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * The Netty event loop the calling thread runs, found with public Vert.x API only: an event-loop thread runs exactly
 * one loop for its whole life, so the loop is looked up once per thread among Vert.x's loops
 * ({@link Vertx#nettyEventLoopGroup()}) and remembered. Vert.x's internal context type would give it directly, but
 * it is not API and has moved before.
 */
public final class EventLoops {

    /** The loop of each event-loop thread that asked; none on other threads. */
    private static final FastThreadLocal<EventLoop> OWN = new FastThreadLocal<>();

    private EventLoops() {
    }

    /** The loop this thread runs, or null off an event loop (a worker, a plain thread, a thread of another Vert.x). */
    public static EventLoop current() {
        EventLoop loop = OWN.get();
        if (loop != null) {
            return loop;
        }
        if (!Context.isOnEventLoopThread()) {
            return null;
        }
        Context context = Vertx.currentContext();
        if (context == null) {
            return null;
        }
        for (EventExecutor e : context.owner().nettyEventLoopGroup()) {
            if (e.inEventLoop() && e instanceof EventLoop l) {
                OWN.set(l);
                return l;
            }
        }
        return null;
    }
}
