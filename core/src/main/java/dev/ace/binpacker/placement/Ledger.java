package dev.ace.binpacker.placement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Who holds which GPUs. {@link #reserve} takes every GPU of a reservation or none, and only free
 * ones: that is how ACE decides. {@link #record} takes them whatever they hold: that is how the
 * world is counted (another replica's committed entry, a pod ACE did not place), so a GPU held
 * twice shows as over-commit instead of being dropped. Release gives back exactly what was taken.
 * Not thread-safe: {@link Allocator} serialises access.
 */
public final class Ledger {
    /** Why a reservation could not be recorded. */
    public enum Outcome { RESERVED, ALREADY_HELD, UNKNOWN_NODE, CONFLICT }

    private final ClusterState state;
    private final Map<String, Reservation> byId = new LinkedHashMap<>();
    private final Map<String, Set<String>> byNode = new HashMap<>();
    private final Map<String, String> byRequest = new HashMap<>();
    /**
     * ACE's pending entries (not tied to a pod yet) by their pods' namespace: the namespace cap reads them on every
     * committed admission, which must not cost a walk of every entry held (issue 31: 11.6 ms at 10,000 entries).
     */
    private final Map<String, Set<String>> pendingByNamespace = new HashMap<>();

    public Ledger(ClusterState state) { this.state = state; }

    public ClusterState state() { return state; }

    /** Records the reservation if all its GPUs (and CPU) are free right now; changes nothing otherwise. */
    public Outcome reserve(Reservation r) {
        if (byId.containsKey(r.id())) return Outcome.ALREADY_HELD;
        int i = state.indexOf(r.node());
        if (i < 0) return Outcome.UNKNOWN_NODE;
        if (!state.fits(i, r.gpuMask(), r.milliPerGpu(), r.cpuMilli())) return Outcome.CONFLICT;
        put(i, r);
        return Outcome.RESERVED;
    }

    /**
     * Records a holding that exists whatever this replica thought free (over-commit shows in
     * {@link ClusterState#overcommit}). Entries on a node this replica does not know yet are kept and
     * take their GPUs when the node arrives. False when an entry of that id is already held.
     */
    public boolean record(Reservation r) {
        if (byId.containsKey(r.id())) return false;
        put(state.indexOf(r.node()), r);
        return true;
    }

    private void put(int nodeIndex, Reservation r) {
        if (nodeIndex >= 0) charge(nodeIndex, r, true);
        byId.put(r.id(), r);
        byNode.computeIfAbsent(r.node(), k -> new LinkedHashSet<>()).add(r.id());
        if (r.owner().requestUid() != null) byRequest.put(r.owner().requestUid(), r.id());
        indexPending(r, true);
    }

    private void indexPending(Reservation r, boolean add) {
        if (!r.isAce() || !r.pending() || r.owner().namespace() == null) return;
        if (add) {
            pendingByNamespace.computeIfAbsent(r.owner().namespace(), k -> new LinkedHashSet<>()).add(r.id());
            return;
        }
        Set<String> in = pendingByNamespace.get(r.owner().namespace());
        if (in != null) {
            in.remove(r.id());
            if (in.isEmpty()) pendingByNamespace.remove(r.owner().namespace());
        }
    }

    /** Frees a reservation's GPUs; empty if there was none of that id. */
    public Optional<Reservation> release(String id) {
        Reservation r = byId.remove(id);
        if (r == null) return Optional.empty();
        int i = state.indexOf(r.node());
        if (i >= 0) charge(i, r, false);
        Set<String> on = byNode.get(r.node());
        if (on != null) {
            on.remove(id);
            if (on.isEmpty()) byNode.remove(r.node());
        }
        if (r.owner().requestUid() != null) byRequest.remove(r.owner().requestUid(), id);
        indexPending(r, false);
        return Optional.of(r);
    }

    /** Replaces a held reservation by the same GPUs under new bookkeeping (tied to its pod, say). */
    public boolean update(Reservation r) {
        Reservation old = byId.get(r.id());
        if (old == null || old.gpuMask() != r.gpuMask() || !old.node().equals(r.node()) || old.milliPerGpu() != r.milliPerGpu()) {
            return false;
        }
        byId.put(r.id(), r);
        indexPending(old, false);
        indexPending(r, true);
        if (old.owner().requestUid() != null) byRequest.remove(old.owner().requestUid(), r.id());
        if (r.owner().requestUid() != null) byRequest.put(r.owner().requestUid(), r.id());
        return true;
    }

    /**
     * Moves an entry to other GPUs of its node: the node agent reported which GPUs its pod really
     * holds. The new GPUs are taken whatever holds them (the node's word beats ACE's choice).
     */
    public boolean rekey(String id, long mask, boolean exact) {
        Reservation old = byId.get(id);
        if (old == null) return false;
        release(id);
        record(old.rekeyed(mask, exact));
        return true;
    }

    /**
     * Adds or replaces a node. When its GPU count changes, capacity starts free again and every entry
     * on it takes its GPUs back (those beyond the new board stay recorded and count as over-commit).
     */
    public int upsertNode(NodeInfo info) {
        int before = state.indexOf(info.name());
        int oldCount = before < 0 ? -1 : state.node(before).gpuCount();
        int i = state.upsert(info);
        if (before < 0 || oldCount != info.gpuCount()) {
            for (Reservation r : onNode(info.name())) charge(i, r, true);
        }
        return i;
    }

    /** GPUs an entry names that the node's board does not have (it shrank under the entry). */
    public int beyondBoard(Reservation r) {
        int i = state.indexOf(r.node());
        if (i < 0 || state.node(i).board() == null) return r.gpuCount();
        return Long.bitCount(r.gpuMask() & ~state.node(i).board().allGpus());
    }

    private void charge(int i, Reservation r, boolean take) {
        NodeInfo n = state.node(i);
        long mask = n == null || n.board() == null ? 0 : r.gpuMask() & n.board().allGpus();
        if (take) state.take(i, mask, r.milliPerGpu(), r.cpuMilli());
        else state.give(i, mask, r.milliPerGpu(), r.cpuMilli());
    }

    public Optional<Reservation> get(String id) { return Optional.ofNullable(byId.get(id)); }

    /** The reservation admission request {@code requestUid} made, if held. */
    public Optional<Reservation> forRequest(String requestUid) {
        String id = requestUid == null ? null : byRequest.get(requestUid);
        return id == null ? Optional.empty() : get(id);
    }

    /** ACE's entries not tied to a pod yet, made for pods of {@code namespace} (in no promised order). */
    public List<Reservation> pendingIn(String namespace) {
        Set<String> ids = namespace == null ? null : pendingByNamespace.get(namespace);
        if (ids == null) return List.of();
        List<Reservation> out = new ArrayList<>(ids.size());
        for (String id : ids) out.add(byId.get(id));
        return out;
    }

    /** Entries on a node, in the order they were recorded. */
    public List<Reservation> onNode(String node) {
        Set<String> ids = byNode.get(node);
        if (ids == null) return List.of();
        List<Reservation> out = new ArrayList<>(ids.size());
        for (String id : ids) out.add(byId.get(id));
        return out;
    }

    /** GPUs held on a node by entries (over-commit included), and beyond its board. */
    public int heldOn(String node) {
        int n = 0;
        for (Reservation r : onNode(node)) n += r.gpuCount();
        return n;
    }

    public Collection<Reservation> all() { return Collections.unmodifiableCollection(byId.values()); }

    public int size() { return byId.size(); }
}
