package dev.ace.binpacker.cluster.ledger;

import dev.ace.binpacker.placement.Reservation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * One node's ledger object ({@code GpuLedger}, named after the node) as the store holds it: ACE's
 * entries, and for people reading it with kubectl the node's GPUs, its usable (allocatable) GPUs
 * and the GPUs of pods ACE did not place, as the leader last published them.
 *
 * @param resourceVersion  the object's version, the precondition of the next write; null before it exists
 * @param reportGeneration the generation of the node agent's report ({@code ace.dev/gpu-allocation}) the
 *                         leader last applied to the entries; a report of a lower generation is stale
 */
public record LedgerDoc(String node, String resourceVersion, Capacity capacity, List<Reservation> entries, long reportGeneration) {
    /**
     * Whether one version of an object is older than another. resourceVersions are opaque to clients; kube-apiserver's
     * are etcd revisions, so numbers compare; one that does not parse is never older (a wrong guess costs one 409 and
     * a read, never a GPU).
     */
    public static boolean olderVersion(String candidate, String than) {
        try {
            return Long.parseLong(candidate) < Long.parseLong(than);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** A node's GPUs as one replica sees them. */
    public record Capacity(int gpus, int usable, int foreign) {
        public static final Capacity UNKNOWN = new Capacity(0, 0, 0);
    }

    public LedgerDoc {
        capacity = capacity == null ? Capacity.UNKNOWN : capacity;
        entries = List.copyOf(entries);
    }

    /** An object no node report has been applied to yet. */
    public LedgerDoc(String node, String resourceVersion, Capacity capacity, List<Reservation> entries) {
        this(node, resourceVersion, capacity, entries, 0);
    }

    public static LedgerDoc empty(String node, Capacity capacity) { return new LedgerDoc(node, null, capacity, List.of()); }

    public Optional<Reservation> entry(String id) { return entries.stream().filter(e -> e.id().equals(id)).findFirst(); }

    public LedgerDoc with(Reservation r) {
        List<Reservation> l = new ArrayList<>(entries);
        l.add(r);
        return new LedgerDoc(node, resourceVersion, capacity, l, reportGeneration);
    }

    public LedgerDoc without(String id) {
        return new LedgerDoc(node, resourceVersion, capacity, entries.stream().filter(e -> !e.id().equals(id)).toList(), reportGeneration);
    }

    public LedgerDoc replacing(String id, UnaryOperator<Reservation> f) {
        return new LedgerDoc(node, resourceVersion, capacity, entries.stream().map(e -> e.id().equals(id) ? f.apply(e) : e).toList(),
                reportGeneration);
    }

    public LedgerDoc withCapacity(Capacity c) { return new LedgerDoc(node, resourceVersion, c, entries, reportGeneration); }

    /** The entries re-keyed, moved or dropped by the node's report of {@code generation}. */
    public LedgerDoc withEntries(List<Reservation> next, long generation) {
        return new LedgerDoc(node, resourceVersion, capacity, next, Math.max(reportGeneration, generation));
    }

    /** GPUs held by entries tied to their pod, and by entries still waiting for it. */
    public int held() { return entries.stream().filter(e -> !e.pending()).mapToInt(Reservation::gpuCount).sum(); }

    public int pending() { return entries.stream().filter(Reservation::pending).mapToInt(Reservation::gpuCount).sum(); }

    /** GPUs of entries whose indices the node confirmed (the node agent reported their pod on exactly these). */
    public int confirmed() { return entries.stream().filter(Reservation::exact).mapToInt(Reservation::gpuCount).sum(); }

    /** Usable GPUs no one holds, as far as this object knows (never below zero: over-commit shows in the other columns). */
    public int free() { return Math.max(0, capacity.usable() - held() - pending() - capacity.foreign()); }
}
