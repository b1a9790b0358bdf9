package dev.ace.binpacker.realapi;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/** Waiting on a condition with a deadline: the suite never sleeps as an assertion. */
public final class Conditions {
    private Conditions() {}

    /** Polls {@code condition} every 200 ms until it is true; fails with {@code what} after {@code within}. */
    public static void await(String what, Duration within, Callable<Boolean> condition) {
        await(() -> what, within, condition);
    }

    public static void await(Supplier<String> what, Duration within, Callable<Boolean> condition) {
        long deadline = System.nanoTime() + within.toNanos();
        Exception last = null;
        while (true) {
            try {
                if (Boolean.TRUE.equals(condition.call())) return;
                last = null;
            } catch (IllegalStateException e) {
                throw e;
            } catch (Exception e) {
                last = e;
            }
            if (System.nanoTime() - deadline > 0) {
                AssertionError err = new AssertionError("timed out after " + within.toSeconds() + " s waiting for: " + what.get());
                if (last != null) err.initCause(last);
                throw err;
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what.get());
            }
        }
    }
}
