package dev.ratelimit.runtime.algorithm;

/** A sliding log's admitted times. */
final class LogState extends State {

    final TimeLog log;

    LogState(TimeLog log, long expiresAt) {
        super(expiresAt);
        this.log = log;
    }

    @Override
    long unitsHeld(long now, long limit, long window) {
        return log.countAfter(now - window);
    }

    /** The request's times are logged only once the whole decision charges. */
    @Override
    void charge(long now, long window, long cost, String lease) {
        for (long k = 0; k < cost; k++) {
            log.add(now);
        }
    }
}
