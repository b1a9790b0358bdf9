package dev.ace.binpacker.cluster.controller;

import java.util.Collection;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The gated queue as one key, as controller-runtime reconciles a cluster-wide resource: whole groups first
 * ({@link GroupKeeper}), then single pods ({@link GateKeeper}), oldest of the highest priority first with one
 * earmark. The queue's order is global (a group before single pods, the first waiter's earmark shapes where
 * the others go), so its waiters are not keys of their own: one pod reconciled apart from the others could be
 * released ahead of an older one. The key is enqueued only by what can change a walk's outcome: a gated pod or
 * a group's rank arrived, changed or left; GPUs may have freed (a node touched: an entry released, a report or
 * a node changed, a node's entries or report reconciled); a group's hold, backoff or earmark time came (the
 * walk's requeue-after); a new term; the resync. A walk whose release could not be settled is retried after
 * the key's backoff. An idle leader with waiters does not walk between resyncs.
 */
final class GateQueue implements KeyReconciler<String> {
    /** The queue's one key. */
    static final String KEY = "gated-queue";

    private final GroupKeeper groups;
    private final GateKeeper gates;
    private final LongSupplier wallMillis;

    GateQueue(GroupKeeper groups, GateKeeper gates, LongSupplier wallMillis) {
        this.groups = groups;
        this.gates = gates;
        this.wallMillis = wallMillis;
    }

    @Override
    public Result reconcile(String key, long now, BooleanSupplier leading) {
        Result g = groups.pass(now, wallMillis.getAsLong(), leading); // whole groups first: a freed clique goes to a waiting group before single pods
        if (!leading.getAsBoolean()) return Result.DONE;
        return Result.sooner(g, gates.pass(wallMillis.getAsLong(), leading));
    }

    @Override
    public Collection<String> keys() { return List.of(KEY); }

    /** A term begins or ends: the groups' ages, holds and backoffs are measured afresh. */
    @Override
    public void forget() { groups.forget(); }
}
