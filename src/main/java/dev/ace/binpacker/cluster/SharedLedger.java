package dev.ace.binpacker.cluster;

import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.ReservationStore;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Reservations shared between webhook replicas through the per-node ledger objects. Every change is
 * read, check, write-with-the-version-read; a write that loses (409) re-reads and checks again. A
 * commit is refused when its GPUs overlap an entry, or when the entries and the GPUs of pods ACE did
 * not place would exceed the node's usable GPUs. etcd is the consensus; nothing here is. Every lost compare-and-swap and every refused commit is counted
 * ({@code ace_ledger_conflicts_total}).
 */
public final class SharedLedger implements ReservationStore {
    /** Writes retried after lost compare-and-swaps before the caller gets an error. */
    static final int CAS_ATTEMPTS = 10;

    private final LedgerStore store;
    private final Function<String, LedgerDoc.Capacity> capacity;
    private final Runnable onConflict;

    /**
     * @param capacity   this replica's view of a node's GPUs, written when the object is created or published
     * @param onConflict called on every lost compare-and-swap and refused commit
     */
    public SharedLedger(LedgerStore store, Function<String, LedgerDoc.Capacity> capacity, Runnable onConflict) {
        this.store = store;
        this.capacity = capacity;
        this.onConflict = onConflict;
    }

    @Override
    public List<Reservation> commit(Reservation r) {
        for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
            LedgerDoc doc = store.get(r.node()).orElse(null);
            List<Reservation> entries = doc == null ? List.of() : doc.entries();
            Optional<Reservation> same = entries.stream().filter(e -> e.id().equals(r.id())).findFirst();
            if (same.isPresent()) {
                if (same.get().gpuMask() == r.gpuMask()) return List.of();
                onConflict.run();
                return List.of(same.get()); // an id names one set of GPUs for its whole life
            }
            List<Reservation> overlap = entries.stream().filter(e -> (e.gpuMask() & r.gpuMask()) != 0).toList();
            if (!overlap.isEmpty()) {
                onConflict.run();
                return overlap;
            }
            if (exceedsUsable(entries, r)) {
                onConflict.run();
                return entries; // the decision was made on a view that lacked some of them
            }
            try {
                if (doc == null) store.create(LedgerDoc.empty(r.node(), capacity.apply(r.node())).with(r));
                else store.update(doc.with(r));
                return List.of();
            } catch (LedgerStore.StaleLedgerException e) {
                onConflict.run();
            }
        }
        throw exhausted(r.node());
    }

    /**
     * Disjoint masks are not enough: replicas may charge the GPUs of pods ACE did not place (and those
     * beyond allocatable) to different indices, so the entries together must also fit what is usable.
     */
    private boolean exceedsUsable(List<Reservation> entries, Reservation r) {
        LedgerDoc.Capacity c = capacity.apply(r.node());
        if (c.gpus() == 0) return false; // this replica does not know the node: the overlap check is all it has
        int held = r.gpuCount();
        for (Reservation e : entries) held += e.gpuCount();
        return held + c.foreign() > Math.min(c.usable(), c.gpus());
    }

    @Override
    public void remove(Reservation r) {
        change(r.node(), doc -> doc.entry(r.id())
                .filter(e -> Objects.equals(e.owner().podUid(), r.owner().podUid()))
                .map(e -> doc.without(r.id())).orElse(null));
    }

    /**
     * Ties an untied entry to its pod's UID and real name: from now on only that pod confirms or
     * releases it. False when the entry is gone or tied to another pod already.
     */
    public boolean tie(Reservation r, String podUid, String podName) {
        boolean[] tied = {false};
        change(r.node(), doc -> {
            Optional<Reservation> e = doc.entry(r.id());
            if (e.isEmpty()) return null;
            if (e.get().owner().podUid() != null) {
                tied[0] = e.get().owner().podUid().equals(podUid);
                return null;
            }
            tied[0] = true;
            return doc.replacing(r.id(), x -> x.tiedTo(podUid, podName));
        });
        return tied[0];
    }

    /** Writes the node's GPUs as this replica sees them (the leader publishes them for {@code kubectl get gpuledgers}). */
    public void publish(String node, LedgerDoc.Capacity c) {
        for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
            Optional<LedgerDoc> doc = store.get(node);
            try {
                if (doc.isEmpty()) {
                    store.create(LedgerDoc.empty(node, c));
                } else if (!doc.get().capacity().equals(c)) {
                    store.update(doc.get().withCapacity(c));
                }
                return;
            } catch (LedgerStore.StaleLedgerException e) {
                onConflict.run();
            }
        }
        throw exhausted(node);
    }

    /** Deletes the ledger object of a node that is gone, if no entry is left on it. */
    public void dropIfEmpty(String node) {
        for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
            Optional<LedgerDoc> doc = store.get(node);
            if (doc.isEmpty() || !doc.get().entries().isEmpty()) return;
            try {
                store.delete(doc.get());
                return;
            } catch (LedgerStore.StaleLedgerException e) {
                onConflict.run();
            }
        }
        throw exhausted(node);
    }

    /** The object as stored now (what a replica re-reads when its mirror may have missed a change). */
    public Optional<LedgerDoc> read(String node) { return store.get(node); }

    @Override
    public Optional<Reservation> lookup(String node, String id) {
        return store.get(node).flatMap(doc -> doc.entry(id));
    }

    /**
     * The leader's edit of a node's entries from the node's report: {@code edit} is applied to the object
     * as stored now and the result written with the version read; a lost compare-and-swap re-reads and
     * applies it again, so an edit is always judged on the entries it replaces. An edit returning null
     * changes nothing. Returns what was written, empty when nothing was (no object, or no change).
     */
    public Optional<LedgerDoc> rewrite(String node, UnaryOperator<LedgerDoc> edit) { return change(node, edit); }

    /** Applies {@code edit} to the current object and writes it; an edit returning null changes nothing. */
    private Optional<LedgerDoc> change(String node, UnaryOperator<LedgerDoc> edit) {
        for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
            Optional<LedgerDoc> doc = store.get(node);
            if (doc.isEmpty()) return Optional.empty();
            LedgerDoc next = edit.apply(doc.get());
            if (next == null) return Optional.empty();
            try {
                return Optional.ofNullable(store.update(next));
            } catch (LedgerStore.StaleLedgerException e) {
                onConflict.run();
            }
        }
        throw exhausted(node);
    }

    private static IllegalStateException exhausted(String node) {
        return new IllegalStateException("ledger object " + node + " changed under us " + CAS_ATTEMPTS + " times in a row");
    }
}
