package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The node index is an optimisation: for whole-GPU requests it must pick exactly what a plain
 * scan over every node picks. The scan path is forced by asking for a tiny CPU amount on nodes
 * that do not track CPU (so the CPU filter itself is a no-op).
 */
class IndexedPathTest {
    private static final GpuBoard[] BOARDS = {Boards.HGX_H100, Boards.A100_PCIE_PAIRS, Boards.L40S, Boards.DGX1};

    @Test
    @DisplayName("Indexed decisions equal a full scan on random cluster states")
    void indexEqualsScan() {
        Random rnd = new Random(7);
        for (int round = 0; round < 60; round++) {
            ClusterState state = new ClusterState();
            int nodes = 5 + rnd.nextInt(40);
            for (int i = 0; i < nodes; i++) {
                List<Taint> taints = rnd.nextInt(6) == 0 ? List.of(new Taint("gpu", "reserved", "NoSchedule")) : List.of();
                state.upsert(new NodeInfo("n" + i, rnd.nextBoolean() ? Pool.INFERENCE : Pool.GENERAL,
                        Map.of("zone", "z" + rnd.nextInt(3)), taints, BOARDS[rnd.nextInt(BOARDS.length)], "test", null, 0));
            }
            Ledger ledger = new Ledger(state);
            for (int i = 0; i < nodes; i++) {
                long mask = rnd.nextLong() & state.node(i).board().allGpus() & rnd.nextLong();
                if (mask != 0) ledger.reserve(new Reservation("h" + i, "n" + i, mask, 1000, 0, 1, null, 0, false));
            }
            Packer packer = new Packer(state, PackerConfig.defaults());
            for (int q = 0; q < 20; q++) {
                int k = new int[]{1, 2, 3, 4, 8}[rnd.nextInt(5)];
                NodeConstraints c = rnd.nextBoolean() ? NodeConstraints.NONE
                        : new NodeConstraints(Map.of("zone", "z" + rnd.nextInt(3)), List.of(), List.of());
                List<Pool> pools = rnd.nextBoolean() ? List.of(Pool.INFERENCE) : List.of(Pool.INFERENCE, Pool.GENERAL);
                PlacementRequest indexed = new PlacementRequest("a", WorkloadClass.INFERENCE, k, 1000, k, pools, c, 0, null);
                PlacementRequest scanned = new PlacementRequest("b", WorkloadClass.INFERENCE, k, 1000, k, pools, c, 1, null);
                assertEquals(describe(packer.decide(scanned)), describe(packer.decide(indexed)), "round " + round + " query " + q);
            }
        }
    }

    private static String describe(PlacementResult r) {
        if (r instanceof PlacementResult.Placed p) return p.node() + "/" + p.gpuMask() + "/" + p.fullBandwidth();
        return ((PlacementResult.Unschedulable) r).message();
    }
}
