package dev.ace.binpacker.placement;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Who holds which GPUs. Reserve takes every GPU of a reservation or none; release gives back
 * exactly what was taken. Not thread-safe: {@link Allocator} serialises access.
 */
public final class Ledger {
    /** Why a reservation could not be recorded. */
    public enum Outcome { RESERVED, ALREADY_HELD, UNKNOWN_NODE, CONFLICT }

    private final ClusterState state;
    private final Map<String, Reservation> byId = new LinkedHashMap<>();

    public Ledger(ClusterState state) { this.state = state; }

    public ClusterState state() { return state; }

    /** Records the reservation if all its GPUs (and CPU) are free right now; changes nothing otherwise. */
    public Outcome reserve(Reservation r) {
        if (byId.containsKey(r.id())) return Outcome.ALREADY_HELD;
        int i = state.indexOf(r.node());
        if (i < 0) return Outcome.UNKNOWN_NODE;
        if (!state.fits(i, r.gpuMask(), r.milliPerGpu(), r.cpuMilli())) return Outcome.CONFLICT;
        state.take(i, r.gpuMask(), r.milliPerGpu(), r.cpuMilli());
        byId.put(r.id(), r);
        return Outcome.RESERVED;
    }

    /** Frees a reservation's GPUs; empty if there was none of that id. */
    public Optional<Reservation> release(String id) {
        Reservation r = byId.remove(id);
        if (r == null) return Optional.empty();
        int i = state.indexOf(r.node());
        if (i >= 0) state.give(i, r.gpuMask(), r.milliPerGpu(), r.cpuMilli());
        return Optional.of(r);
    }

    /** Replaces a held reservation by the same GPUs under new bookkeeping (e.g. pending -> confirmed). */
    public boolean update(Reservation r) {
        Reservation old = byId.get(r.id());
        if (old == null || old.gpuMask() != r.gpuMask() || !old.node().equals(r.node()) || old.milliPerGpu() != r.milliPerGpu()) {
            return false;
        }
        byId.put(r.id(), r);
        return true;
    }

    public Optional<Reservation> get(String id) { return Optional.ofNullable(byId.get(id)); }

    public Collection<Reservation> all() { return Collections.unmodifiableCollection(byId.values()); }

    public int size() { return byId.size(); }
}
