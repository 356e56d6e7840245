/**
 * The algorithms, one extension point: {@link dev.ratelimit.runtime.algorithm.Algorithm} names each one's
 * configuration name, the Lua source Redis decides it with and its twin deciding in process
 * ({@link dev.ratelimit.runtime.algorithm.InProcessAlgorithm}), which the local backend calls with the
 * {@link dev.ratelimit.runtime.algorithm.State} it stores per key. Nothing here knows a backend.
 * <p>
 * One class per Lua source: {@code BucketAlgorithm} ({@code bucket.lua}, shared by token bucket, leaky bucket and
 * GCRA), {@code FixedWindowAlgorithm}, {@code SlidingLogAlgorithm}, {@code SlidingCounterAlgorithm},
 * {@code ConcurrencyAlgorithm}; read each beside its script. One state per family: {@code BucketState},
 * {@code WindowState}, {@code CounterState}, {@code LogState} (a {@code TimeLog}), {@code LeaseState} (a
 * {@code LeaseSet}).
 * <p>
 * A new algorithm is: a constant of {@code Algorithm}; its script {@code <config-name>.lua} in
 * {@code src/main/resources/dev/ratelimit/lua/}, registering its function in the table {@code A} under its
 * configuration name; its twin here, implementing {@code InProcessAlgorithm} and naming that script; and, if it
 * keeps a state of a new shape, a {@code State} of its own (listed in {@code State}'s {@code permits}), whose
 * {@code unitsHeld} reads it for the other algorithms as the prelude's {@code units_held} does.
 */
package dev.ratelimit.runtime.algorithm;
