package dev.ratelimit.runtime.algorithm;

/**
 * The sliding window log in process, as {@code sliding-window-log.lua} decides it, number for number.
 */
final class SlidingLogAlgorithm implements InProcessAlgorithm {

    @Override
    public String script() {
        return "sliding-window-log.lua";
    }

    /**
     * Another algorithm's state becomes a log of the units it holds, logged now (the script converts the key when it
     * reads it, whatever it then decides); nothing when it holds none.
     */
    @Override
    public State read(State stored, long now, long limit, long window) {
        if (stored == null || stored instanceof LogState) {
            return stored;
        }
        long held = Math.min(stored.unitsHeld(now, limit, window), limit);
        if (held == 0) {
            return null;
        }
        TimeLog log = new TimeLog();
        for (long i = 0; i < held; i++) {
            log.add(now);
        }
        return new LogState(log, now + window);
    }

    @Override
    public Outcome decide(State st, long now, long limit, long window, long burst, long cost, String lease) {
        // read() made any other state a log: st is a log or nothing
        TimeLog log = st != null ? ((LogState) st).log : new TimeLog();
        log.removeUpTo(now - window);
        long count = log.size();
        long resetNow = count > 0 ? log.get(0) + window - now : 0;
        if (cost > limit) {
            return Outcome.denied(limit - count, -1, resetNow);
        }
        if (count + cost > limit) {
            // admitted once the (count + cost - limit) oldest entries have left the window
            int rank = (int) (count + cost - limit - 1);
            return Outcome.denied(limit - count, log.get(rank) + window - now, resetNow);
        }
        long reset = count > 0 ? resetNow : window;
        // the admitted times are appended only if the whole decision charges (LogState.charge)
        return Outcome.allowed(limit - count, reset, resetNow, new LogState(log, now + window));
    }

    /** {@code units} of the entries logged at {@code at} leave the log (sliding-window-log.lua's refund). */
    @Override
    public State refund(State st, long now, long limit, long window, long burst, long at, long units) {
        if (st instanceof LogState l) {
            l.log.remove(at, units);
        }
        return st;
    }

    /** {@code units} entries more are logged now, up to twice the limit in the window (sliding-window-log.lua's debit). */
    @Override
    public State debit(State st, long now, long limit, long window, long burst, long units) {
        if (st != null && !(st instanceof LogState)) {
            return st; // another algorithm's value: as the script, whose ZREMRANGEBYSCORE fails on it
        }
        TimeLog log = st instanceof LogState l ? l.log : new TimeLog();
        log.removeUpTo(now - window);
        long add = Math.min(units, 2 * limit - log.size());
        for (long i = 0; i < add; i++) {
            log.add(now);
        }
        if (log.size() == 0) {
            return st instanceof LogState ? st : null;
        }
        return new LogState(log, now + window);
    }
}
