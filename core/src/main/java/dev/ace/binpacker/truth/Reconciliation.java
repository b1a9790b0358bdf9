package dev.ace.binpacker.truth;

import java.util.List;

/**
 * The node's word applied to the ledger entries of one node.
 *
 * @param entries   the corrected entries: confirmed ones on the GPUs their pods really hold, pods ACE
 *                  never saw added, unconfirmed ones kept or moved off GPUs that turned out taken
 * @param unhealthy GPUs of the board the kubelet does not offer: they leave capacity
 * @param drift     every difference found, for the {@code ace_binding_drift_total{kind}} metric and Events
 * @param displaced unconfirmed entries for which no free GPUs were left: to re-decide or gate
 * @param released  entries dropped because another entry already stands for the same pod
 */
public record Reconciliation(List<LedgerEntry> entries, long unhealthy, List<Drift> drift,
                             List<LedgerEntry> displaced, List<LedgerEntry> released) {
    public Reconciliation {
        entries = List.copyOf(entries);
        drift = List.copyOf(drift);
        displaced = List.copyOf(displaced);
        released = List.copyOf(released);
    }

    /** Number of findings of one kind. */
    public long count(Drift.Kind kind) { return drift.stream().filter(d -> d.kind() == kind).count(); }
}
