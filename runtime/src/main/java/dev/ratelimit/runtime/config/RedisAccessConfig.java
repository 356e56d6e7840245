package dev.ratelimit.runtime.config;

import java.time.Duration;
import java.util.OptionalInt;

import io.smallrye.config.WithDefault;

/**
 * Redis access.
 */
public interface RedisAccessConfig {
    /**
     * How long one decision may wait for Redis before the failure mode applies.
     */
    @WithDefault("250ms")
    Duration timeout();

    /**
     * Whether to `SCRIPT LOAD` the scripts when the application starts (otherwise the first
     * call loads them through the `EVALSHA`/`EVAL` fallback).
     */
    @WithDefault("true")
    boolean preloadScripts();

    /**
     * Whether decisions call Redis functions (`FCALL`, Redis 7.0 and later) where Redis takes them. The
     * extension then loads its scripts as one function library (`FUNCTION LOAD`, named `ratelimit_` and a
     * hash of its code, so that versions sharing a Redis each keep their own) when the application starts,
     * and a decision runs only its own work, where a script (`EVALSHA`) first defines every function of the
     * scripts again (the performance page measures the difference). Until the library is loaded (a load that
     * failed, Redis not being up yet say, is tried again a second later), where Redis refuses it (before 7.0,
     * without the right to load or call functions, behind a proxy that does not pass them; logged once at
     * INFO), and on a Redis Cluster, decisions run as scripts. A library Redis loses (a restart without
     * persistence, `FUNCTION FLUSH`) is loaded again by the next call while decisions go on as scripts. `false`:
     * always scripts, nothing loaded into Redis but scripts.
     */
    @WithDefault("true")
    boolean functions();

    /**
     * Most decisions sent to Redis in one script run. When decisions arrive while earlier ones
     * are still waiting for Redis, those made on one event loop in the same turn go together:
     * Redis parses one command and writes one reply for all of them, and reads and writes a key
     * once however many of them touch it (the performance page measures the gain). Identical
     * decisions next to each other that charge one policy (one key, one cost, not a concurrency
     * policy: a burst on a hot key) are sent once and count once here, up to 16 times this many
     * decisions in a run: Redis decides such a burst in two or three steps whatever its size. A run
     * holding any other decision takes at most this many decisions. A decision made while nothing is in flight is
     * sent at once, alone. Each decision is still atomic and all-or-nothing. `1` sends every
     * decision alone. On a Redis Cluster a run holds the decisions of one primary, whatever their slots (see the Redis
     * Cluster page), and a primary's next run waits while it has one unanswered.
     */
    @WithDefault("16")
    int maxBatch();

    /**
     * Most connections the limiter opens to Redis and pipelines its decisions on (any number
     * of decisions in flight on each). Unset: one per event loop, opened on that event loop,
     * so that a decision made there is sent and its reply read on the same thread. With fewer
     * connections than event loops, the loops beyond share the connections of others, and
     * their decisions go to the thread of that loop and back. The connections are opened with
     * the Redis client's options (hosts, password, TLS, standalone, sentinel or cluster; on a
     * cluster each one is a connection per master) but are not taken from its pool: they do
     * not count against its `max-pool-size`.
     */
    OptionalInt connections();
}
