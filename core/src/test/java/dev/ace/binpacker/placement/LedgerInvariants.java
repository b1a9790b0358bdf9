package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/** The ledger's two invariants, checked by every test that stresses it: no GPU held twice; free + held = capacity. */
public final class LedgerInvariants {
    private LedgerInvariants() {}

    /** Call with the allocator's lock held (or no concurrent writers). */
    public static void assertHold(ClusterState state, Collection<Reservation> reservations) {
        Map<String, Long> held = new HashMap<>();
        for (Reservation r : reservations) {
            long prior = held.getOrDefault(r.node(), 0L);
            if ((prior & r.gpuMask()) != 0) fail("GPU held twice on " + r.node() + ": " + r);
            held.put(r.node(), prior | r.gpuMask());
        }
        for (int i = 0; i < state.capacity(); i++) {
            NodeInfo n = state.node(i);
            if (n == null || n.board() == null) continue;
            long h = held.getOrDefault(n.name(), 0L);
            long free = state.freeMask(i);
            assertEquals(0, free & h, "a held GPU is also free on " + n.name());
            assertEquals(n.board().allGpus(), free | h, "free + held != capacity on " + n.name());
        }
    }
}
