package dev.ace.binpacker.cluster.controller;

import java.util.Collection;
import java.util.function.BooleanSupplier;

/**
 * The leader's work on one key (a node's entries, a node's report, a node's pinned pods, a node's counts),
 * as controller-runtime's {@code Reconciler}: read the local view for that key, decide, write with a
 * precondition, and say when to look again. Idempotent: a key reconciled twice in a row does nothing the
 * second time, so a queue may bring it as often as events ask.
 *
 * @param <K> the key
 */
interface KeyReconciler<K> {
    /** @param now this leader's monotonic millis; {@code leading} is checked before every write */
    Result reconcile(K key, long now, BooleanSupplier leading);

    /** Every key there is now: what a new leader and each resync enqueue (level-triggered, not only events). */
    Collection<K> keys();

    /** Forget every per-key age: a new leader measures from its own first sight. */
    void forget();

    /** False once this pass has spent its write budget: the keys left wait in the queue for the next pass. */
    default boolean budgetLeft() { return true; }

    /** A pass begins (a write budget starts again). */
    default void passBegins() { }
}
