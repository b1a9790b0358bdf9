package dev.ace.binpacker.cluster.view;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with jitter for retries that never give up (an API server that is down now may
 * be up in a minute): {@code initial * 2^attempt}, capped, plus up to 20 % jitter so replicas that
 * failed together do not retry together.
 */
public final class Backoff {
    private final long initialMillis;
    private final long maxMillis;
    private final Object sleeper = new Object();
    private volatile boolean interrupted;

    public Backoff(long initialMillis, long maxMillis) {
        this.initialMillis = initialMillis;
        this.maxMillis = maxMillis;
    }

    public long delayMillis(int attempt) {
        long base = attempt >= 30 ? maxMillis : Math.min(maxMillis, initialMillis << attempt);
        return base + ThreadLocalRandom.current().nextLong(base / 5 + 1);
    }

    /** Sleeps; false when interrupted (the owner is closing). */
    public boolean sleep(long millis) {
        synchronized (sleeper) {
            if (interrupted) return false;
            try {
                sleeper.wait(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            return !interrupted;
        }
    }

    public void interrupt() {
        synchronized (sleeper) {
            interrupted = true;
            sleeper.notifyAll();
        }
    }
}
