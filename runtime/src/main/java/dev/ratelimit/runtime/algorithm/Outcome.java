package dev.ratelimit.runtime.algorithm;

/**
 * One policy's verdict on one key.
 *
 * @param ok admitted
 * @param avail units available before the request
 * @param retry microseconds until it could be admitted (0 when admitted now, -1 never; admitted at a turn, the
 *        microseconds until the turn)
 * @param reset microseconds until more quota comes if it is charged
 * @param resetNow the same if it is not
 * @param next the state a charge leaves, before {@link #charged} completes it (null when denied)
 */
public record Outcome(boolean ok, long avail, long retry, long reset, long resetNow, State next) {

    static Outcome denied(long avail, long retry, long resetNow) {
        return new Outcome(false, avail, retry, resetNow, resetNow, null);
    }

    static Outcome allowed(long avail, long reset, long resetNow, State next) {
        return new Outcome(true, avail, 0, reset, resetNow, next);
    }

    /** Admitted at a turn {@code wait} µs from now (0: now), charged now (see bucket.lua). */
    static Outcome inTurn(long avail, long wait, long reset, long resetNow, State next) {
        return new Outcome(true, avail, wait, reset, resetNow, next);
    }

    /**
     * The state to store once the whole decision charges, {@code cost} units at {@code now}: what the decision only
     * counted is written now (a log's times, a lease's slots), so that a decision another policy denies adds
     * nothing.
     */
    public State charged(long now, long window, long cost, String lease) {
        next.charge(now, window, cost, lease);
        return next;
    }
}
