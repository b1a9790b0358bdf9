package dev.ace.binpacker.placement;

import java.util.List;

/**
 * Where reservations become durable and shared between webhook replicas. The in-memory
 * {@link Ledger} is each replica's view; a store adds compare-and-swap on shared state (the
 * Kubernetes API server), so two replicas can never hand out the same GPU.
 */
public interface ReservationStore {
    /**
     * Makes {@code r} durable unless another reservation already holds one of its GPUs.
     *
     * @return the reservations that conflict with {@code r}; empty when {@code r} was committed
     *         (or was already there, unchanged)
     */
    List<Reservation> commit(Reservation r);

    /** Forgets a reservation; a no-op when it is not there. */
    void remove(Reservation r);

    /** A store for a single replica: the in-memory ledger is the whole truth. */
    ReservationStore IN_MEMORY = new ReservationStore() {
        @Override
        public List<Reservation> commit(Reservation r) { return List.of(); }

        @Override
        public void remove(Reservation r) { }
    };
}
