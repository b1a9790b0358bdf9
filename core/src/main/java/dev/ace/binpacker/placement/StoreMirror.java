package dev.ace.binpacker.placement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which ACE entries of a replica's ledger came from the shared store (mirrored, per node, as the
 * store's watch last delivered them) and which this replica reserved and has not seen there yet
 * (in-flight). A mirror that lags never drops an in-flight entry; an entry the store dropped is
 * released here. Not thread-safe: {@link Allocator} serialises access.
 */
final class StoreMirror {
    private final Set<String> inFlight = new LinkedHashSet<>(); // insertion order: replays are deterministic
    private final Map<String, Map<String, Reservation>> mirrored = new HashMap<>();

    void reserved(String id) { inFlight.add(id); }

    boolean isInFlight(String id) { return inFlight.contains(id); }

    /** This replica released the entry: it is neither in flight nor mirrored any more (the next watch event says otherwise if needed). */
    void forget(Reservation r) {
        inFlight.remove(r.id());
        Map<String, Reservation> m = mirrored.get(r.node());
        if (m != null) m.remove(r.id());
    }

    List<Reservation> inFlight(Ledger ledger) {
        List<Reservation> out = new ArrayList<>();
        for (String id : inFlight) ledger.get(id).ifPresent(out::add);
        return out;
    }

    /** Applies the store's entries of one node to the ledger; returns the nodes whose holdings changed. */
    Set<String> apply(Ledger ledger, String node, Collection<Reservation> entries) {
        Map<String, Reservation> prev = mirrored.getOrDefault(node, Map.of());
        Map<String, Reservation> next = new LinkedHashMap<>();
        for (Reservation e : entries) next.put(e.id(), e);
        Set<String> touched = new HashSet<>(List.of(node));
        for (String id : prev.keySet()) {
            if (!next.containsKey(id) && !inFlight.contains(id)) ledger.release(id);
        }
        for (Reservation e : next.values()) {
            inFlight.remove(e.id());
            Optional<Reservation> cur = ledger.get(e.id());
            if (cur.isEmpty()) {
                ledger.record(e);
            } else if (!ledger.update(e)) { // other GPUs or another node: the store's word wins
                touched.add(cur.get().node());
                ledger.release(e.id());
                ledger.record(e);
            }
        }
        if (next.isEmpty()) mirrored.remove(node);
        else mirrored.put(node, next);
        return touched;
    }

    /** A committed entry learnt from a lost race, before the watch delivers it; false when already held as is. */
    boolean adopt(Ledger ledger, Reservation w) {
        Optional<Reservation> cur = ledger.get(w.id());
        if (cur.isPresent() && cur.get().node().equals(w.node()) && cur.get().gpuMask() == w.gpuMask()) return false;
        cur.ifPresent(c -> ledger.release(c.id()));
        ledger.record(w);
        mirrored.computeIfAbsent(w.node(), k -> new LinkedHashMap<>()).put(w.id(), w);
        return true;
    }
}
