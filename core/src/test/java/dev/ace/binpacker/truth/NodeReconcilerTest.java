package dev.ace.binpacker.truth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.Ledger;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.PlacementResult;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.topology.BoardCatalog;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import dev.ace.binpacker.topology.TopologyParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Reconciliation scenarios on real boards: after it, the ledger's entries equal the node's report,
 * and the next TP pod the packer places on that state gets GPUs that are really free and a true clique.
 */
class NodeReconcilerTest {
    static final GpuBoard HGX = catalog("NVIDIA-H100-80GB-HBM3", 8);
    static final GpuBoard H100_NVL_8 = catalog("NVIDIA-H100-NVL", 8);

    static GpuBoard catalog(String product, int count) {
        return BoardCatalog.infer(Map.of("nvidia.com/gpu.product", product, "nvidia.com/gpu.count", Integer.toString(count)))
                .board().orElseThrow();
    }

    static GpuBoard a100PciePairs() throws Exception {
        String f = "a100-pcie-4gpu-nvlink-bridge-pairs.txt";
        return TopologyParser.parse(Files.readString(Path.of("tests/fixtures/topology", f)), f);
    }

    static LedgerEntry ace(String pod, int tp, int... gpus) {
        return new LedgerEntry("res-" + pod, LedgerEntry.Source.ACE, "ml", pod, GpuBoard.mask(gpus), false, tp, false, false);
    }

    static NodeReport.PodDevices holds(String pod, int... gpus) {
        return new NodeReport.PodDevices("ml", pod, GpuBoard.mask(gpus), 0, 0);
    }

    static NodeReport report(GpuBoard board, TopologyManagerPolicy policy, long healthy, NodeReport.PodDevices... pods) {
        return new NodeReport(7, "2026-01-01T00:00:00Z", policy, board.gpuCount(), healthy, List.of(pods), List.of());
    }

    static NodeReport report(GpuBoard board, NodeReport.PodDevices... pods) {
        return report(board, TopologyManagerPolicy.NONE, board.allGpus(), pods);
    }

    /** The ledger holds exactly what the node reported for every pod it reported. */
    static void assertLedgerEqualsReport(Reconciliation r, NodeReport report) {
        Map<String, Long> ledger = new HashMap<>();
        for (LedgerEntry e : r.entries()) if (e.confirmed()) ledger.merge(e.namespace() + "/" + e.podName(), e.gpuMask(), (a, b) -> a | b);
        Map<String, Long> node = new HashMap<>();
        for (NodeReport.PodDevices p : report.pods()) node.put(p.key(), p.held());
        assertEquals(node, ledger);
    }

    /** The packer's next choice for a TP pod on the reconciled state of one node. */
    static PlacementResult place(GpuBoard board, TopologyManagerPolicy policy, Reconciliation r, int tp) {
        ClusterState state = new ClusterState();
        state.upsert(new NodeInfo("n", Pool.INFERENCE, Map.of(), List.of(), board, "test", board.name(), 0, policy));
        Allocator a = new Allocator(state, PackerConfig.defaults());
        List<Reservation> held = new ArrayList<>();
        for (LedgerEntry e : r.entries()) held.add(new Reservation(e.id(), "n", e.gpuMask(), 1000, 0, e.tp(), null, 0, e.pending()));
        if (r.unhealthy() != 0) held.add(new Reservation("unhealthy", "n", r.unhealthy(), 1000, 0, 1, null, 0, false));
        for (Reservation h : held) assertEquals(Ledger.Outcome.RESERVED, a.adopt(h), h.id());
        return a.place(PlacementRequest.whole("next", WorkloadClass.INFERENCE, tp, tp, List.of(Pool.INFERENCE), NodeConstraints.NONE),
                false, 0).result();
    }

    static long held(NodeReport report) {
        long m = 0;
        for (NodeReport.PodDevices p : report.pods()) m |= p.held();
        return m;
    }

    @Test
    @DisplayName("HGX, swapped NUMA halves: both reservations are re-keyed, and the next TP2 (single-numa-node) takes GPUs that are really free")
    void hgxSwappedHalves() {
        NodeReport node = report(HGX, TopologyManagerPolicy.SINGLE_NUMA_NODE, HGX.allGpus(), holds("a", 4, 5, 6, 7), holds("b", 0, 1));
        Reconciliation r = NodeReconciler.reconcile(HGX, List.of(ace("a", 4, 0, 1, 2, 3), ace("b", 2, 4, 5)), node);
        assertEquals(2, r.count(Drift.Kind.MOVED));
        assertLedgerEqualsReport(r, node);
        PlacementResult.Placed next = assertInstanceOf(PlacementResult.Placed.class, place(HGX, TopologyManagerPolicy.SINGLE_NUMA_NODE, r, 2));
        assertArrayEquals(new int[] {2, 3}, next.gpus());
        assertEquals(0, next.gpuMask() & held(node));
    }

    @Test
    @DisplayName("A100 PCIe bridged pairs (fixture): a 1-GPU pod that split the other pair is re-keyed, and the next TP2 gets the pair that is really whole")
    void splitBridgedPairA100() throws Exception {
        GpuBoard board = a100PciePairs();
        NodeReport node = report(board, holds("single", 2));
        Reconciliation r = NodeReconciler.reconcile(board, List.of(ace("single", 1, 0)), node);
        assertEquals(List.of(new Drift(Drift.Kind.MOVED, "res-single", "ml", "single", GpuBoard.mask(0), GpuBoard.mask(2))), r.drift());
        assertLedgerEqualsReport(r, node);
        PlacementResult.Placed next = assertInstanceOf(PlacementResult.Placed.class, place(board, TopologyManagerPolicy.NONE, r, 2));
        assertArrayEquals(new int[] {0, 1}, next.gpus());
        assertTrue(board.isClique(next.gpuMask()));
    }

    @Test
    @DisplayName("A100 PCIe bridged pairs: ACE put a 1-GPU pod next to a used GPU, the kubelet gave it a GPU of the whole pair: split_pair")
    void splitPairWhereAceChoseTheBrokenOne() throws Exception {
        GpuBoard board = a100PciePairs();
        NodeReport node = report(board, holds("other", 2), holds("single", 0));
        Reconciliation r = NodeReconciler.reconcile(board, List.of(ace("single", 1, 3)), node);
        assertEquals(List.of(Drift.Kind.MOVED, Drift.Kind.SPLIT_PAIR, Drift.Kind.UNSEEN_POD), r.drift().stream().map(Drift::kind).toList());
        assertEquals(new Drift(Drift.Kind.SPLIT_PAIR, "res-single", "ml", "single", GpuBoard.mask(3), GpuBoard.mask(0)), r.drift().get(1));
        assertEquals("ACE chose GPU 3 on n, next to a GPU already in use; the node gave 0 and broke a whole NVLink pair"
                + " (NVIDIA/k8s-device-plugin#1193)", DriftText.of(r.drift().get(1), "n", board));
        assertLedgerEqualsReport(r, node);
    }

    @Test
    @DisplayName("A100 PCIe bridged pairs: a 1-GPU pod moved onto the lone GPU of another broken pair split nothing")
    void movedWithinBrokenPairsIsNoSplit() throws Exception {
        GpuBoard board = a100PciePairs();
        NodeReport node = report(board, holds("other", 2), holds("another", 0), holds("single", 1));
        Reconciliation r = NodeReconciler.reconcile(board, List.of(ace("single", 1, 3)), node);
        assertEquals(1, r.count(Drift.Kind.MOVED));
        assertEquals(0, r.count(Drift.Kind.SPLIT_PAIR));
    }

    @Test
    @DisplayName("H100 NVL pairs: a TP2 pod the kubelet gave a non-clique set is flagged, and the next TP2 gets a true pair")
    void tp2OnNonCliqueH100Nvl() {
        NodeReport node = report(H100_NVL_8, holds("tp2", 1, 2));
        Reconciliation r = NodeReconciler.reconcile(H100_NVL_8, List.of(ace("tp2", 2, 0, 1)), node);
        assertEquals(1, r.count(Drift.Kind.NOT_A_CLIQUE));
        assertEquals(1, r.count(Drift.Kind.MOVED));
        assertLedgerEqualsReport(r, node);
        PlacementResult.Placed next = assertInstanceOf(PlacementResult.Placed.class, place(H100_NVL_8, TopologyManagerPolicy.NONE, r, 2));
        assertTrue(H100_NVL_8.isClique(next.gpuMask()), () -> java.util.Arrays.toString(next.gpus()));
        assertEquals(0, next.gpuMask() & held(node));
    }

    @Test
    @DisplayName("A pod ACE never saw is added as observed with a drift, and the next TP placement avoids its GPUs")
    void unseenPod() {
        NodeReport node = report(HGX, holds("a", 0, 1, 2, 3), holds("stranger", 4, 5));
        Reconciliation r = NodeReconciler.reconcile(HGX, List.of(ace("a", 4, 0, 1, 2, 3)), node);
        assertEquals(List.of(new Drift(Drift.Kind.UNSEEN_POD, "pod:ml/stranger", "ml", "stranger", 0, GpuBoard.mask(4, 5))), r.drift());
        assertLedgerEqualsReport(r, node);
        assertInstanceOf(PlacementResult.Unschedulable.class, place(HGX, TopologyManagerPolicy.NONE, r, 4));
        assertArrayEquals(new int[] {6, 7}, assertInstanceOf(PlacementResult.Placed.class, place(HGX, TopologyManagerPolicy.NONE, r, 2)).gpus());
    }

    @Test
    @DisplayName("An unhealthy GPU leaves capacity: the next TP4 takes the other NUMA half, and a pod on it is flagged")
    void unhealthyGpu() {
        long healthy = HGX.allGpus() & ~GpuBoard.mask(3);
        NodeReport node = report(HGX, TopologyManagerPolicy.NONE, healthy, holds("on-bad", 3));
        Reconciliation r = NodeReconciler.reconcile(HGX, List.of(ace("on-bad", 1, 3)), node);
        assertEquals(GpuBoard.mask(3), r.unhealthy());
        assertEquals(1, r.count(Drift.Kind.UNHEALTHY_GPU));
        NodeReport empty = report(HGX, TopologyManagerPolicy.NONE, healthy);
        Reconciliation idle = NodeReconciler.reconcile(HGX, List.of(), empty);
        assertArrayEquals(new int[] {4, 5, 6, 7},
                assertInstanceOf(PlacementResult.Placed.class, place(HGX, TopologyManagerPolicy.NONE, idle, 4)).gpus());
    }

    @Test
    @DisplayName("A pending reservation whose GPUs a running pod really holds moves to the free half; with no room it is returned as displaced")
    void pendingReservationDisplaced() {
        LedgerEntry pending = new LedgerEntry("res-new", LedgerEntry.Source.ACE, "ml", null, GpuBoard.mask(4, 5, 6, 7), false, 4, true, false);
        NodeReport node = report(HGX, holds("a", 4, 5, 6, 7));
        Reconciliation r = NodeReconciler.reconcile(HGX, List.of(ace("a", 4, 0, 1, 2, 3), pending), node);
        LedgerEntry moved = r.entries().stream().filter(e -> e.id().equals("res-new")).findFirst().orElseThrow();
        assertArrayEquals(new int[] {0, 1, 2, 3}, GpuBoard.indices(moved.gpuMask()));
        assertEquals(1, r.count(Drift.Kind.DISPLACED));

        NodeReport full = report(HGX, holds("a", 4, 5, 6, 7), holds("stranger", 0, 1));
        Reconciliation none = NodeReconciler.reconcile(HGX, List.of(ace("a", 4, 0, 1, 2, 3), pending), full);
        assertEquals(List.of(pending), none.displaced());
        assertTrue(none.entries().stream().noneMatch(e -> e.id().equals("res-new")));
    }

    @Test
    @DisplayName("An observed entry for a pod ACE also reserved is released; shared and MIG holders never count as a broken clique")
    void duplicatesAndShares() {
        LedgerEntry observed = new LedgerEntry("pod-uid-1", LedgerEntry.Source.OBSERVED, "ml", "a", GpuBoard.mask(6), false, 1, false, false);
        NodeReport node = new NodeReport(1, null, TopologyManagerPolicy.NONE, 8, HGX.allGpus(), List.of(
                holds("a", 0, 1),
                new NodeReport.PodDevices("ml", "embed", 0, GpuBoard.mask(5, 7), 0),
                new NodeReport.PodDevices("ml", "notebook", 0, 0, GpuBoard.mask(6))), List.of());
        Reconciliation r = NodeReconciler.reconcile(HGX, List.of(observed, ace("a", 2, 0, 1),
                new LedgerEntry("res-embed", LedgerEntry.Source.ACE, "ml", "embed", GpuBoard.mask(5), true, 2, false, false)), node);
        assertEquals(List.of(observed), r.released());
        assertEquals(0, r.count(Drift.Kind.NOT_A_CLIQUE));
        assertTrue(r.entries().stream().filter(e -> e.podName().equals("embed")).allMatch(LedgerEntry::shared));
        assertLedgerEqualsReport(r, node);
    }
}
