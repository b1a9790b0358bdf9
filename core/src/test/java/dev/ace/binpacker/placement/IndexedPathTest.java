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
 * scan over every node picks, fragmentation term included. The scan path is forced by asking for
 * a tiny CPU amount on nodes that do not track CPU (so the CPU filter itself is a no-op).
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
            // a learned workload, so the fragmentation term is not zero (the webhook's shapes: whole GPUs, no selector)
            for (int q = 0; q < 50; q++) {
                int k = new int[]{1, 1, 2, 4, 8}[rnd.nextInt(5)];
                packer.observe(PlacementRequest.whole("w" + q, WorkloadClass.INFERENCE, k, k, List.of(Pool.INFERENCE), NodeConstraints.NONE));
            }
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

    @Test
    @DisplayName("On whole-GPU nodes the one-pass fragmentation measure equals the per-GPU one")
    void wholeDeltaEqualsDelta() {
        Random rnd = new Random(8);
        for (int round = 0; round < 40; round++) {
            ClusterState state = new ClusterState();
            for (int i = 0; i < 10; i++) {
                List<Taint> taints = rnd.nextInt(4) == 0 ? List.of(new Taint("gpu", "reserved", "NoSchedule")) : List.of();
                state.upsert(new NodeInfo("n" + i, Pool.GENERAL, Map.of("zone", "z" + rnd.nextInt(2)), taints,
                        BOARDS[rnd.nextInt(BOARDS.length)], "test", null, 0));
            }
            Ledger ledger = new Ledger(state);
            for (int i = 0; i < 10; i++) {
                long mask = rnd.nextLong() & state.node(i).board().allGpus();
                if (mask != 0 && mask != state.node(i).board().allGpus()) ledger.reserve(new Reservation("h" + i, "n" + i, mask, 1000, 0, 1, null, 0, false));
            }
            FragmentationScorer f = new FragmentationScorer(1.0, false);
            for (int q = 0; q < 30; q++) {
                int k = new int[]{1, 2, 4, 8}[rnd.nextInt(4)];
                NodeConstraints c = rnd.nextBoolean() ? NodeConstraints.NONE
                        : new NodeConstraints(Map.of("zone", "z" + rnd.nextInt(2)), List.of(), List.of());
                f.observe(rnd.nextInt(4) == 0
                        ? new PlacementRequest("s" + q, WorkloadClass.UNKNOWN, 1, 300 + rnd.nextInt(600), 1, List.of(Pool.GENERAL), c, 0, null)
                        : PlacementRequest.whole("w" + q, WorkloadClass.INFERENCE, k, k, List.of(Pool.GENERAL), c));
            }
            for (int i = 0; i < 10; i++) {
                long free = state.freeMask(i);
                for (int k = 1; k <= Long.bitCount(free); k++) {
                    long set = 0;
                    for (long rest = free; Long.bitCount(set) < k; rest &= rest - 1) set |= rest & -rest;
                    assertEquals(f.delta(state, i, set, 1000, 0), f.wholeDelta(state, i, Long.bitCount(free), k), 1e-6,
                            "round " + round + " node " + i + " k " + k);
                }
            }
        }
    }

    private static String describe(PlacementResult r) {
        if (r instanceof PlacementResult.Placed p) return p.node() + "/" + p.gpuMask() + "/" + p.fullBandwidth();
        return ((PlacementResult.Unschedulable) r).message();
    }
}
