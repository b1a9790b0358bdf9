package dev.ace.binpacker.placement;

import java.util.List;
import java.util.Optional;

/**
 * Where reservations become durable and shared between webhook replicas. The in-memory
 * {@link Ledger} is each replica's view; a store adds compare-and-swap on shared state (the
 * Kubernetes API server), so two replicas can never hand out the same GPU.
 */
public interface ReservationStore {
    /**
     * Makes {@code r} durable unless another entry already holds one of its GPUs, or an entry of the
     * same id holds other GPUs (refused: an id names one set of GPUs for its whole life).
     *
     * @return the entries that conflict with {@code r}; empty when {@code r} was committed (or was
     *         already there, unchanged)
     * @throws RuntimeException when the store cannot answer (the write may or may not have landed)
     */
    List<Reservation> commit(Reservation r);

    /**
     * Forgets the entry of {@code r}'s id if it still belongs to {@code r}'s pod (same pod UID, or
     * both untied): never an entry another pod has since been tied to. A no-op when it is not there.
     */
    void remove(Reservation r);

    /**
     * The entry {@code id} on {@code node} as the store holds it now: how a replica recognises a
     * reservation another replica made a moment ago, before its own mirror has caught up (the API
     * server sends a pod's reinvocation and its /validate call to any replica).
     */
    default Optional<Reservation> lookup(String node, String id) { return Optional.empty(); }

    /** A store for a single replica: the in-memory ledger is the whole truth. */
    ReservationStore IN_MEMORY = new ReservationStore() {
        @Override
        public List<Reservation> commit(Reservation r) { return List.of(); }

        @Override
        public void remove(Reservation r) { }
    };
}
