package dev.ace.binpacker.cluster.controller;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * One reconciler and its work queue, as a controller of controller-runtime's manager: started when this
 * replica becomes leader (every key enqueued, as after an informer's first list), stopped and drained
 * when it stops leading. A pass reconciles the keys ready when it begins; a key's result sets when it
 * comes again ({@link Result}); a reconcile that throws or asks to retry backs off per key.
 *
 * @param <K> the key
 */
final class Controller<K> {
    private static final Logger LOG = Logger.getLogger(Controller.class);

    private final String name;
    private final KeyReconciler<K> reconciler;
    private final WorkQueue<K> queue;
    private long reconciles;

    Controller(String name, KeyReconciler<K> reconciler, LongSupplier monotonicMillis, long baseBackoffMillis, long maxBackoffMillis) {
        this.name = name;
        this.reconciler = reconciler;
        this.queue = new WorkQueue<>(monotonicMillis, baseBackoffMillis, maxBackoffMillis);
    }

    String name() { return name; }

    boolean started() { return queue.running(); }

    /** Leadership gained: measure afresh and look at every key. */
    void start() {
        reconciler.forget();
        queue.start();
        resync();
    }

    /** Leadership lost: no key waits on a replica that does not lead, and no age survives to a later term. */
    void stop() {
        queue.stop();
        reconciler.forget();
    }

    /** Every key once more: the level-triggered safety net behind the events. */
    void resync() { reconciler.keys().forEach(queue::add); }

    /** An event about {@code key}; ignored while stopped. */
    void enqueue(K key) { queue.add(key); }

    /**
     * Reconciles the keys ready now, until the budget is spent or leadership is lost; keys added meanwhile wait for
     * the next pass. Returns how many keys it reconciled.
     */
    int pass(long now, BooleanSupplier leading) {
        reconciler.passBegins();
        int done = 0;
        for (int n = queue.readyCount(); n > 0 && reconciler.budgetLeft(); n--) {
            if (!leading.getAsBoolean()) return done;
            Optional<K> next = queue.poll();
            if (next.isEmpty()) return done;
            K key = next.get();
            reconciles++;
            done++;
            try {
                Result r = reconciler.reconcile(key, now, leading);
                if (r instanceof Result.Retry retry) {
                    LOG.debugf("%s %s: %s; retried after its backoff", name, key, retry.why());
                    queue.addRateLimited(key);
                } else {
                    queue.forget(key);
                    if (r instanceof Result.RequeueAfter after) queue.addAfter(key, after.millis());
                }
            } catch (RuntimeException e) { // one key's failure must not stop the others
                LOG.warnf("%s %s failed: %s; retried after its backoff", name, key, e.getMessage());
                queue.addRateLimited(key);
            } finally {
                queue.done(key);
            }
        }
        return done;
    }

    /** Millis until a key is due (0: one is ready); empty when none waits. */
    OptionalLong untilNextDue() { return queue.untilNextDue(); }

    /** Reconciles run since this controller was made: the work a pass or a resync costs, counted, not timed. */
    long reconciles() { return reconciles; }
}
