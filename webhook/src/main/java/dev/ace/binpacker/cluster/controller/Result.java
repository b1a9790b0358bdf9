package dev.ace.binpacker.cluster.controller;

/**
 * What one reconcile of a key asks of its queue, as controller-runtime's {@code reconcile.Result}: nothing
 * more until an event or the resync brings the key again, a look again after a delay (a time-out measured
 * from when the key was first seen runs out then), or a retry with the key's backoff (a write failed).
 */
public sealed interface Result {
    Result DONE = new Done();

    record Done() implements Result {}

    /** @param millis how long from now; the earlier of two requests for one key wins */
    record RequeueAfter(long millis) implements Result {}

    /** @param why what failed, for the log */
    record Retry(String why) implements Result {}

    /** The earliest of the two: done when neither asks for a time, a retry when either is one. */
    static Result sooner(Result a, Result b) {
        if (a instanceof Retry) return a;
        if (b instanceof Retry) return b;
        if (!(a instanceof RequeueAfter x)) return b;
        if (!(b instanceof RequeueAfter y)) return a;
        return x.millis() <= y.millis() ? a : b;
    }

    /** A look again {@code dueAt - now} millis from now (at least 1). */
    static Result at(long dueAt, long now) { return new RequeueAfter(Math.max(1, dueAt - now)); }
}
