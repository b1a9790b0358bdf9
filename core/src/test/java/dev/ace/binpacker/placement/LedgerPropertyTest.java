package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Random reserve/release sequences on random clusters; the invariants are checked after every step. */
class LedgerPropertyTest {
    private static final GpuBoard[] BOARDS = {Boards.HGX_H100, Boards.A100_PCIE_PAIRS, Boards.L40S, Boards.DGX1, Boards.nvswitch(4, 6)};
    private static final Pool[] POOLS = Pool.values();

    @Test
    @DisplayName("No GPU is ever held by two reservations, and free + held always equals capacity")
    void invariantsHoldOverRandomSequences() {
        for (int seed = 0; seed < 40; seed++) {
            runSequence(new Random(seed), 250);
        }
    }

    private void runSequence(Random rnd, int steps) {
        ClusterState state = new ClusterState();
        int nodes = 1 + rnd.nextInt(12);
        for (int i = 0; i < nodes; i++) {
            state.upsert(Boards.node("n" + i, POOLS[rnd.nextInt(POOLS.length)], BOARDS[rnd.nextInt(BOARDS.length)]));
        }
        Allocator a = new Allocator(state, PackerConfig.defaults());
        List<String> live = new ArrayList<>();
        int next = 0;
        for (int step = 0; step < steps; step++) {
            if (!live.isEmpty() && rnd.nextInt(3) == 0) {
                String id = live.remove(rnd.nextInt(live.size()));
                assertTrue(a.release(id).isPresent());
            } else if (rnd.nextInt(10) == 0 && nodes > 0) {
                // a conflicting adopt (a stale annotation) must change nothing
                int n = rnd.nextInt(nodes);
                long mask = rnd.nextLong() & state.node(n).board().allGpus();
                if (mask == 0) mask = 1;
                Reservation r = new Reservation("adopt" + (next++), "n" + n, mask, 1000, 0, 1, null, 0, false);
                long before = state.freeMask(n);
                Ledger.Outcome o = a.adopt(r);
                if (o == Ledger.Outcome.RESERVED) live.add(r.id());
                else assertEquals(before, state.freeMask(n), "a refused reservation changed the node");
            } else {
                int[] sizes = {1, 1, 2, 2, 4, 8, 3};
                int k = sizes[rnd.nextInt(sizes.length)];
                List<Pool> pools = List.of(POOLS[rnd.nextInt(POOLS.length)]);
                PlacementRequest req = PlacementRequest.whole("r" + (next++), WorkloadClass.INFERENCE, k, k == 3 ? 1 : k, pools, NodeConstraints.NONE);
                Allocator.Outcome o = a.place(req, rnd.nextInt(8) == 0, 0);
                if (o.placed() && a.reservation(req.id()).isPresent()) {
                    live.add(req.id());
                    PlacementResult.Placed p = (PlacementResult.Placed) o.result();
                    assertEquals(k, Long.bitCount(p.gpuMask()));
                    assertTrue(pools.contains(state.node(p.nodeIndex()).pool()), "placed outside the allowed pools");
                    if (req.wantsClique() && state.node(p.nodeIndex()).board().largestClique() >= k) {
                        // some allowed board has a clique of k, so the result must be a clique
                        assertTrue(p.fullBandwidth(), "TP group not on a clique");
                    }
                }
            }
            check(state, a.ledger());
        }
        for (String id : live) a.release(id);
        for (int i = 0; i < state.capacity(); i++) {
            assertEquals(state.node(i).board().allGpus(), state.freeMask(i), "not everything came back");
        }
    }

    private static void check(ClusterState state, Ledger ledger) {
        LedgerInvariants.assertHold(state, ledger.all());
    }
}
