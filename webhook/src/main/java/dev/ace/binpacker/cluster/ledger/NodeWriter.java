package dev.ace.binpacker.cluster.ledger;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * One replica's writes to one ledger object, combined (group commit): a caller queues its change and
 * takes the node's write turn; whoever holds the turn writes every change queued so far in one
 * compare-and-swap, so concurrent admissions on one node cost one API round trip between them instead
 * of a chain of 409s and re-reads. The turn serialises this replica's writes to this one object only
 * (they would conflict with each other anyway); other nodes, and the allocator lock, are never held.
 * A caller that waits longer than {@code maxWait} for its turn gets an error (the API server applies the
 * webhook's failurePolicy, as for any slow write).
 *
 * @param <T> one queued change and its answer
 */
final class NodeWriter<T extends NodeWriter.Job> {
    /** A queued change: done once its batch was written or refused, with the answer set by the batch. */
    abstract static class Job {
        private volatile boolean done;
        private RuntimeException error;

        final boolean done() { return done; }

        final void finish() { done = true; }

        final void fail(RuntimeException e) {
            error = e;
            done = true;
        }

        final void rethrow() {
            if (error != null) throw error; // the store's own exception, as an unbatched write would throw it
        }
    }

    private final ReentrantLock turn = new ReentrantLock(true);
    private final ConcurrentLinkedQueue<T> queued = new ConcurrentLinkedQueue<>();
    private final long maxWaitMillis;

    NodeWriter(long maxWaitMillis) { this.maxWaitMillis = maxWaitMillis; }

    /**
     * Queues {@code job} and returns once a batch holding it was handled by {@code writeBatch} (on this
     * thread or another's). {@code writeBatch} must finish or fail every job it is given.
     */
    void submit(T job, Consumer<List<T>> writeBatch) {
        queued.add(job);
        try {
            if (!turn.tryLock(maxWaitMillis, TimeUnit.MILLISECONDS)) {
                if (queued.remove(job)) throw new IllegalStateException("ledger write waited over " + maxWaitMillis + " ms for its turn");
                // taken into a batch meanwhile: that batch's writer finishes it; wait for the turn to see the answer
                turn.lock();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (queued.remove(job)) throw new IllegalStateException("interrupted while waiting to write the ledger", e);
            turn.lock();
        }
        try {
            if (job.done()) return;
            List<T> batch = new ArrayList<>();
            for (T j; (j = queued.poll()) != null; ) batch.add(j);
            try {
                writeBatch.accept(batch);
            } catch (RuntimeException e) {
                for (T j : batch) if (!j.done()) j.fail(e);
            }
            for (T j : batch) if (!j.done()) j.fail(new IllegalStateException("ledger batch left a change unanswered"));
        } finally {
            turn.unlock();
        }
    }
}
