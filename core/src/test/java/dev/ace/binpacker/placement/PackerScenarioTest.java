package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PackerScenarioTest {
    private static final List<Pool> INFERENCE = List.of(Pool.INFERENCE);
    private int seq;

    private Allocator cluster(NodeInfo... nodes) {
        ClusterState state = new ClusterState();
        for (NodeInfo n : nodes) state.upsert(n);
        return new Allocator(state, PackerConfig.defaults());
    }

    private PlacementResult place(Allocator a, int gpus, int tp) {
        return a.place(PlacementRequest.whole("r" + (seq++), WorkloadClass.INFERENCE, gpus, tp, INFERENCE, NodeConstraints.NONE),
                false, 0).result();
    }

    private void hold(Allocator a, String node, int... gpus) {
        Reservation r = new Reservation("held" + (seq++), node, GpuBoard.mask(gpus), 1000, 0, 1, null, 0, false);
        assertEquals(Ledger.Outcome.RESERVED, a.adopt(r));
    }

    private static PlacementResult.Placed placed(PlacementResult r) {
        return assertInstanceOf(PlacementResult.Placed.class, r, () -> r instanceof PlacementResult.Unschedulable u ? u.message() : "");
    }

    @Test
    @DisplayName("TP=4 on a half-used HGX node takes the free NUMA half")
    void tp4TakesFreeNumaHalf() {
        Allocator a = cluster(Boards.node("hgx-0", Pool.INFERENCE, Boards.HGX_H100));
        hold(a, "hgx-0", 0, 1);
        PlacementResult.Placed p = placed(place(a, 4, 4));
        assertArrayEquals(new int[]{4, 5, 6, 7}, p.gpus());
        assertTrue(p.fullBandwidth());
    }

    @Test
    @DisplayName("TP=4 on an empty HGX node takes one NUMA half, not a straddling set")
    void tp4OnEmptyNodeIsAligned() {
        Allocator a = cluster(Boards.node("hgx-0", Pool.INFERENCE, Boards.HGX_H100));
        PlacementResult.Placed first = placed(place(a, 4, 4));
        assertArrayEquals(new int[]{0, 1, 2, 3}, first.gpus());
        PlacementResult.Placed second = placed(place(a, 4, 4));
        assertArrayEquals(new int[]{4, 5, 6, 7}, second.gpus());
    }

    @Test
    @DisplayName("1-GPU requests fill an already broken block before touching a clean one")
    void singleGpuFillsBrokenBlockFirst() {
        Allocator a = cluster(
                Boards.node("clean", Pool.INFERENCE, Boards.HGX_H100),
                Boards.node("broken", Pool.INFERENCE, Boards.HGX_H100));
        hold(a, "broken", 0);
        PlacementResult.Placed p = placed(place(a, 1, 1));
        assertEquals("broken", p.node());
        assertArrayEquals(new int[]{1}, p.gpus(), "the PCIe-pair partner of the used GPU");
        PlacementResult.Placed q = placed(place(a, 1, 1));
        assertEquals("broken", q.node());
        assertTrue(q.gpus()[0] == 2 || q.gpus()[0] == 3, "stays in the broken NUMA half, got " + q.gpus()[0]);
    }

    @Test
    @DisplayName("TP=8 never lands on a node without a free 8-clique")
    void tp8NeedsWholeClique() {
        Allocator a = cluster(
                Boards.node("hgx-0", Pool.INFERENCE, Boards.HGX_H100),
                Boards.node("hgx-1", Pool.INFERENCE, Boards.HGX_H100),
                Boards.node("dgx1", Pool.INFERENCE, Boards.DGX1));
        hold(a, "hgx-0", 3);
        hold(a, "hgx-1", 7);
        PlacementResult r = place(a, 8, 8);
        PlacementResult.Unschedulable u = assertInstanceOf(PlacementResult.Unschedulable.class, r);
        assertEquals("0/3 nodes are available: 2 have fewer than 8 free GPUs, 1 have no NVLink clique of 8 GPUs on their board.",
                u.message());
    }

    @Test
    @DisplayName("TP=8 takes the one node that still has a free 8-clique")
    void tp8FindsTheWholeNode() {
        Allocator a = cluster(
                Boards.node("hgx-0", Pool.INFERENCE, Boards.HGX_H100),
                Boards.node("hgx-1", Pool.INFERENCE, Boards.HGX_H100));
        hold(a, "hgx-0", 5);
        PlacementResult.Placed p = placed(place(a, 8, 8));
        assertEquals("hgx-1", p.node());
        assertEquals(0xFFL, p.gpuMask());
    }

    @Test
    @DisplayName("TP=2 on a bridged-pair board gets a bridged pair, never two halves of different pairs")
    void tp2GetsABridgedPair() {
        Allocator a = cluster(Boards.node("a100", Pool.INFERENCE, Boards.A100_PCIE_PAIRS));
        hold(a, "a100", 0);
        PlacementResult.Placed p = placed(place(a, 2, 2));
        assertArrayEquals(new int[]{2, 3}, p.gpus());
        assertTrue(p.fullBandwidth());
        // GPU 1 and GPU 3 are free but not bridged to each other: no TP=2 fits.
        Allocator b = cluster(Boards.node("a100", Pool.INFERENCE, Boards.A100_PCIE_PAIRS));
        hold(b, "a100", 0);
        hold(b, "a100", 2);
        PlacementResult.Unschedulable u = assertInstanceOf(PlacementResult.Unschedulable.class, place(b, 2, 2));
        assertTrue(u.hasReason(ReasonCode.NO_FREE_CLIQUE), u.message());
    }

    @Test
    @DisplayName("TP=2 goes to a bridged pair rather than break a clean 8-GPU NVSwitch node")
    void tp2PrefersBridgedPairsOverCleanHgx() {
        Allocator a = cluster(
                Boards.node("hgx-0", Pool.INFERENCE, Boards.HGX_H100),
                Boards.node("a100", Pool.INFERENCE, Boards.A100_PCIE_PAIRS));
        PlacementResult.Placed p = placed(place(a, 2, 2));
        assertEquals("a100", p.node());
    }

    @Test
    @DisplayName("TP=4 on DGX-1 takes a fully linked quad")
    void tp4OnCubeMeshTakesAQuad() {
        Allocator a = cluster(Boards.node("dgx1", Pool.INFERENCE, Boards.DGX1));
        hold(a, "dgx1", 1);
        PlacementResult.Placed p = placed(place(a, 4, 4));
        assertArrayEquals(new int[]{4, 5, 6, 7}, p.gpus());
        assertTrue(p.fullBandwidth());
    }

    @Test
    @DisplayName("TP pod that selects PCIe-only nodes gets the best-connected set, not a denial")
    void tpOnPcieOnlyGetsBestConnectedSet() {
        NodeInfo l40s = new NodeInfo("l40s", Pool.INFERENCE, Map.of("gpu", "l40s"), List.of(), Boards.L40S, "test", "L40S", 0);
        Allocator a = cluster(Boards.node("hgx-0", Pool.INFERENCE, Boards.HGX_H100), l40s);
        NodeConstraints onlyL40s = new NodeConstraints(Map.of("gpu", "l40s"), List.of(), List.of());
        PlacementResult r = a.place(PlacementRequest.whole("tp2", WorkloadClass.INFERENCE, 2, 2, INFERENCE, onlyL40s), false, 0).result();
        PlacementResult.Placed p = placed(r);
        assertEquals("l40s", p.node());
        assertArrayEquals(new int[]{0, 1}, p.gpus(), "the pair under one PCIe switch");
        assertFalse(p.fullBandwidth());
    }

    @Test
    @DisplayName("Filter reasons count every node with its numbers")
    void reasonsCarryNumbers() {
        Allocator a = cluster(
                Boards.node("dgx1-0", Pool.INFERENCE, Boards.DGX1),
                Boards.node("dgx1-1", Pool.INFERENCE, Boards.DGX1),
                Boards.node("hgx-0", Pool.INFERENCE, Boards.HGX_H100),
                Boards.node("mig-0", Pool.SLICING, Boards.HGX_H100),
                Boards.node("mig-1", Pool.SLICING, Boards.HGX_H100),
                Boards.node("mig-2", Pool.SLICING, Boards.HGX_H100));
        hold(a, "dgx1-0", 0, 5);   // six free, but both quads are broken
        hold(a, "dgx1-1", 2, 7);
        hold(a, "hgx-0", 0, 1, 2, 4, 5);
        PlacementResult.Unschedulable u = assertInstanceOf(PlacementResult.Unschedulable.class, place(a, 4, 4));
        assertEquals("0/6 nodes are available: 3 are in pool slicing, 2 have fewer than 4 free GPUs in one NVLink clique, "
                + "1 have fewer than 4 free GPUs.", u.message());
    }

    @Test
    @DisplayName("Reserve then release restores the exact state")
    void reserveReleaseRoundTrip() {
        Allocator a = cluster(Boards.node("hgx-0", Pool.INFERENCE, Boards.HGX_H100), Boards.node("a100", Pool.INFERENCE, Boards.A100_PCIE_PAIRS));
        hold(a, "hgx-0", 6);
        long[] before = {a.state().freeMask(0), a.state().freeMask(1)};
        Allocator.Outcome o = a.place(PlacementRequest.whole("tp4", WorkloadClass.INFERENCE, 4, 4, INFERENCE, NodeConstraints.NONE), false, 0);
        assertTrue(o.placed());
        assertTrue(a.release("tp4").isPresent());
        assertArrayEquals(before, new long[]{a.state().freeMask(0), a.state().freeMask(1)});
        assertFalse(a.release("tp4").isPresent(), "a second release is a no-op");
    }

    @Test
    @DisplayName("Dry-run decides but reserves nothing; a repeated request id gets its reservation back")
    void dryRunAndIdempotency() {
        Allocator a = cluster(Boards.node("hgx-0", Pool.INFERENCE, Boards.HGX_H100));
        PlacementRequest r = PlacementRequest.whole("uid-1", WorkloadClass.INFERENCE, 4, 4, INFERENCE, NodeConstraints.NONE);
        assertTrue(a.place(r, true, 0).placed());
        assertEquals(0xFFL, a.state().freeMask(0));
        Allocator.Outcome first = a.place(r, false, 0);
        Allocator.Outcome again = a.place(r, false, 0);
        assertTrue(again.alreadyHeld());
        assertEquals(first.reservation().gpuMask(), again.reservation().gpuMask());
        assertEquals(1, a.ledger().size());
    }

    @Test
    @DisplayName("The same request sequence always yields the same placements")
    void deterministic() {
        String first = run();
        assertEquals(first, run());
    }

    private String run() {
        Allocator a = cluster(
                Boards.node("hgx-0", Pool.INFERENCE, Boards.HGX_H100),
                Boards.node("hgx-1", Pool.INFERENCE, Boards.HGX_H100),
                Boards.node("a100", Pool.INFERENCE, Boards.A100_PCIE_PAIRS));
        StringBuilder b = new StringBuilder();
        int[] sizes = {1, 2, 4, 1, 2, 1, 4, 2, 1, 1};
        for (int s : sizes) {
            PlacementResult r = place(a, s, s);
            b.append(r instanceof PlacementResult.Placed p ? p.node() + java.util.Arrays.toString(p.gpus()) : "none").append(';');
        }
        seq = 0;
        return b.toString();
    }

    @Test
    @DisplayName("A node's taint keeps off pods that do not tolerate it")
    void taintsAreHonoured() {
        NodeInfo tainted = new NodeInfo("tainted", Pool.INFERENCE, Map.of(), List.of(new Taint("dedicated", "llm", "NoSchedule")),
                Boards.HGX_H100, "test", "H100", 0);
        Allocator a = cluster(tainted);
        PlacementResult.Unschedulable u = assertInstanceOf(PlacementResult.Unschedulable.class, place(a, 2, 2));
        assertTrue(u.hasReason(ReasonCode.UNTOLERATED_TAINT));
        NodeConstraints tolerant = new NodeConstraints(Map.of(), List.of(), List.of(new Toleration("dedicated", "Equal", "llm", "NoSchedule")));
        assertTrue(a.place(PlacementRequest.whole("t", WorkloadClass.INFERENCE, 2, 2, INFERENCE, tolerant), false, 0).placed());
    }
}
