package dev.ace.binpacker.truth;

import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.topology.GpuBoard;

/**
 * One holder of GPUs on a node as the ledger records it, in the terms reconciliation needs.
 *
 * @param id        the ledger's id for the entry (a reservation id, or {@code pod:<ns>/<name>} for a
 *                  pod only the node reported)
 * @param source    {@link Source#ACE} for a reservation ACE chose the GPUs of, {@link Source#OBSERVED}
 *                  for a pod ACE did not place, charged to GPUs the ledger guessed
 * @param namespace the pod's namespace, null while unknown
 * @param podName   the pod's name, null while unknown (a pending {@code generateName} reservation)
 * @param gpuMask   the GPUs charged
 * @param shared    the pod holds a share of these GPUs (replica or MIG slice), not the whole GPUs
 * @param tp        tensor-parallel degree, 1 when unknown
 * @param pending   the pod has not been seen yet
 * @param confirmed the node reported these exact GPUs for this pod
 */
public record LedgerEntry(String id, Source source, String namespace, String podName, long gpuMask,
                          boolean shared, int tp, boolean pending, boolean confirmed) {
    public enum Source { ACE, OBSERVED }

    /** The entry of an ACE reservation, not yet confirmed by the node. */
    public static LedgerEntry of(Reservation r) {
        return of(r, r.owner().podUid() == null && r.pending() ? null : r.owner().podName());
    }

    /** The same, naming the pod the node's report is to show for it ({@code null}: no pod there yet). */
    public static LedgerEntry of(Reservation r, String podName) {
        return new LedgerEntry(r.id(), Source.ACE, r.owner().namespace(), podName, r.gpuMask(), r.milliPerGpu() < 1000,
                Math.max(1, r.tp()), r.pending(), false);
    }

    public int gpuCount() { return Long.bitCount(gpuMask); }

    public boolean names(String ns, String name) {
        return podName != null && namespace != null && namespace.equals(ns) && podName.equals(name);
    }

    /** The same entry on other GPUs, unconfirmed. */
    public LedgerEntry movedTo(long mask) {
        return new LedgerEntry(id, source, namespace, podName, mask, shared, tp, pending, false);
    }

    /** The same entry on the GPUs the node reported for its pod. */
    public LedgerEntry confirmedOn(long mask, boolean sharedHolding) {
        return new LedgerEntry(id, source, namespace, podName, mask, sharedHolding, tp, false, true);
    }

    @Override
    public String toString() {
        return id + (podName == null ? "" : "(" + namespace + "/" + podName + ")") + java.util.Arrays.toString(GpuBoard.indices(gpuMask));
    }
}
