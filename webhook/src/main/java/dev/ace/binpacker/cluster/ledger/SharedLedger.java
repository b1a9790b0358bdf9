package dev.ace.binpacker.cluster.ledger;

import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.ReservationStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Reservations shared between webhook replicas through the per-node ledger objects. Every change is
 * check, then write-with-a-version; a write that loses (409) re-reads and checks again. A commit is
 * refused when its GPUs overlap an entry, or when the entries and the GPUs of pods ACE did not place
 * would exceed the node's usable GPUs. etcd is the consensus; nothing here is. Every lost
 * compare-and-swap and every refused commit is counted ({@code ace_ledger_conflicts_total}).
 *
 * <p>Where the time goes on a real API server (issue 15, docs/performance.md): a read before every
 * write doubled the round trips, and concurrent admissions on one node lost their compare-and-swaps to
 * each other in chains. So a write starts from the newest version this replica knows (its own last
 * write, or the informer's copy, {@link #seen}) and reads the object only after a 409, or before it
 * refuses anything (a refusal is never judged on a copy that may be old); and the changes one replica
 * makes to one node at the same time are written together, in one compare-and-swap ({@link NodeWriter}).
 */
public final class SharedLedger implements ReservationStore {
    /** Writes retried after lost compare-and-swaps before the caller gets an error. */
    static final int CAS_ATTEMPTS = 10;
    /** How long a change waits for its node's write turn: under the webhook's 5 s timeout. */
    static final long TURN_WAIT_MILLIS = 3_000;

    private final LedgerStore store;
    private final Function<String, LedgerDoc.Capacity> capacity;
    private final Runnable onConflict;
    private final Map<String, LedgerDoc> known = new ConcurrentHashMap<>();
    private final Map<String, NodeWriter<Change>> writers = new ConcurrentHashMap<>();

    /**
     * @param capacity   this replica's view of a node's GPUs, written when the object is created or published
     * @param onConflict called on every lost compare-and-swap and refused commit
     */
    public SharedLedger(LedgerStore store, Function<String, LedgerDoc.Capacity> capacity, Runnable onConflict) {
        this.store = store;
        this.capacity = capacity;
        this.onConflict = onConflict;
    }

    /** The informer's copy of an object: the base of the next write, unless this replica wrote a newer one. */
    public void seen(LedgerDoc doc) { known.merge(doc.node(), doc, SharedLedger::newer); }

    /** The informer saw the object deleted. */
    public void gone(String node) { known.remove(node); }

    /** The newer of two versions of one object ({@link LedgerDoc#olderVersion}); {@code b} on a tie. */
    static LedgerDoc newer(LedgerDoc a, LedgerDoc b) {
        return LedgerDoc.olderVersion(b.resourceVersion(), a.resourceVersion()) ? a : b;
    }

    /** One queued change of a node's object: an edit of its current version, with what the edit decided. */
    private static final class Change extends NodeWriter.Job {
        final Reservation commit; // a commit, or null for an edit
        final UnaryOperator<LedgerDoc> edit;
        List<Reservation> refusedBy = List.of();
        LedgerDoc written;

        Change(Reservation commit, UnaryOperator<LedgerDoc> edit) {
            this.commit = commit;
            this.edit = edit;
        }
    }

    private NodeWriter<Change> writer(String node) {
        return writers.computeIfAbsent(node, n -> new NodeWriter<>(TURN_WAIT_MILLIS));
    }

    @Override
    public List<Reservation> commit(Reservation r) {
        Change c = new Change(r, null);
        writer(r.node()).submit(c, batch -> write(r.node(), batch));
        c.rethrow();
        return c.refusedBy;
    }

    /** What stops {@code r} from being added to {@code entries}: null when nothing does. */
    private List<Reservation> refusal(List<Reservation> entries, Reservation r) {
        Optional<Reservation> same = entries.stream().filter(e -> e.id().equals(r.id())).findFirst();
        if (same.isPresent()) return same.get().gpuMask() == r.gpuMask() ? List.of() : List.of(same.get());
        List<Reservation> overlap = entries.stream().filter(e -> (e.gpuMask() & r.gpuMask()) != 0).toList();
        if (!overlap.isEmpty()) return overlap;
        if (exceedsUsable(entries, r)) return entries; // the decision was made on a view that lacked some of them
        return null;
    }

    /**
     * Writes a batch of one node's changes in one compare-and-swap: commits that fit are added, edits
     * applied in order. Anything refused, and an edit that finds nothing to change, is judged again on a
     * fresh read before it is answered, so no answer rests on a copy that may be old.
     */
    private void write(String node, List<Change> batch) {
        List<Change> open = new ArrayList<>(batch);
        LedgerDoc base = known.get(node);
        boolean fresh = false;
        if (base == null && open.stream().anyMatch(c -> c.commit == null)) { // an edit needs the object
            base = store.get(node).orElse(null);
            fresh = true;
        }
        for (int attempt = 0; attempt < CAS_ATTEMPTS && !open.isEmpty(); attempt++) {
            LedgerDoc next = base;
            List<Change> applied = new ArrayList<>();
            boolean doubt = false;
            for (Change c : open) {
                if (c.commit != null) {
                    List<Reservation> entries = next == null ? List.of() : next.entries();
                    List<Reservation> no = refusal(entries, c.commit);
                    if (no == null) {
                        next = (next == null ? LedgerDoc.empty(node, capacity.apply(node)) : next).with(c.commit);
                        applied.add(c);
                    } else if (!fresh) {
                        doubt = true;
                    } else {
                        c.refusedBy = no;
                        if (!no.isEmpty()) onConflict.run();
                        c.finish();
                    }
                } else {
                    LedgerDoc edited = next == null ? null : c.edit.apply(next);
                    if (edited != null) {
                        next = edited;
                        applied.add(c);
                    } else if (!fresh) {
                        doubt = true;
                    } else {
                        c.finish();
                    }
                }
            }
            if (doubt) { // judged on a copy: read, and judge the whole batch again
                base = store.get(node).orElse(null);
                fresh = true;
                continue;
            }
            open.removeIf(NodeWriter.Job::done);
            if (applied.isEmpty()) return;
            try {
                LedgerDoc written = base == null ? store.create(next) : store.update(next);
                if (written != null) known.merge(node, written, SharedLedger::newer);
                for (Change c : applied) {
                    c.written = written;
                    c.finish();
                }
                open.removeIf(NodeWriter.Job::done);
                base = written;
                fresh = true; // what we just wrote is the current version (or the next write gets a 409)
            } catch (LedgerStore.StaleLedgerException e) {
                onConflict.run();
                base = store.get(node).orElse(null);
                fresh = true;
            }
        }
        for (Change c : open) c.fail(exhausted(node));
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
            tied[0] = false; // judged afresh on every version the edit is applied to
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

    /** An untied entry and the pod seen carrying it. */
    public record Tie(Reservation entry, String podUid, String podName) {}

    /**
     * Ties untied entries of one node to their pods in one write ({@link #tie} for each); returns the ids tied
     * now or already tied to that pod. Entries gone or tied to another pod are left as they are.
     */
    public java.util.Set<String> tieAll(String node, List<Tie> ties) {
        java.util.Set<String> tied = new java.util.HashSet<>();
        change(node, doc -> {
            tied.clear(); // judged afresh on every version the edit is applied to
            LedgerDoc next = doc;
            boolean changed = false;
            for (Tie t : ties) {
                Optional<Reservation> e = next.entry(t.entry().id());
                if (e.isEmpty()) continue;
                if (e.get().owner().podUid() != null) {
                    if (e.get().owner().podUid().equals(t.podUid())) tied.add(t.entry().id());
                    continue;
                }
                next = next.replacing(t.entry().id(), x -> x.tiedTo(t.podUid(), t.podName()));
                tied.add(t.entry().id());
                changed = true;
            }
            return changed ? next : null;
        });
        return tied;
    }

    /** Writes the node's GPUs as this replica sees them (the leader publishes them for {@code kubectl get gpuledgers}). */
    /** @return true when it wrote (false: the object shows these counts already) */
    public boolean publish(String node, LedgerDoc.Capacity c) {
        LedgerDoc k = known.get(node);
        if (k != null && k.capacity().equals(c)) return false; // the informer shows them already: no read, no write
        Optional<LedgerDoc> doc = Optional.ofNullable(k);
        for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
            try {
                LedgerDoc written = null;
                if (doc.isEmpty()) { // not in the informer's list: create, and read only if it exists after all
                    written = store.create(LedgerDoc.empty(node, c));
                } else if (!doc.get().capacity().equals(c)) {
                    written = store.update(doc.get().withCapacity(c));
                }
                if (written != null) known.merge(node, written, SharedLedger::newer);
                return written != null;
            } catch (LedgerStore.StaleLedgerException e) {
                onConflict.run();
                doc = store.get(node);
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
                known.remove(node);
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
        LedgerDoc k = known.get(node);
        Optional<Reservation> e = k == null ? Optional.empty() : k.entry(id);
        return e.isPresent() ? e : store.get(node).flatMap(doc -> doc.entry(id));
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
        Change c = new Change(null, edit);
        writer(node).submit(c, batch -> write(node, batch));
        c.rethrow();
        return Optional.ofNullable(c.written);
    }

    private static IllegalStateException exhausted(String node) {
        return new IllegalStateException("ledger object " + node + " changed under us " + CAS_ATTEMPTS + " times in a row");
    }
}
