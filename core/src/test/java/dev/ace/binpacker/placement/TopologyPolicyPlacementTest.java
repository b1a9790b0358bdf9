package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The packer makes no placement the node's kubelet would refuse under its Topology Manager policy. */
class TopologyPolicyPlacementTest {
    private int seq;

    private static NodeInfo hgx(String name, TopologyManagerPolicy policy) {
        return new NodeInfo(name, Pool.INFERENCE, Map.of("kubernetes.io/hostname", name), List.of(),
                Boards.HGX_H100, "test", Boards.HGX_H100.name(), 0, policy);
    }

    private Allocator cluster(NodeInfo... nodes) {
        ClusterState state = new ClusterState();
        for (NodeInfo n : nodes) state.upsert(n);
        return new Allocator(state, PackerConfig.defaults());
    }

    private PlacementResult place(Allocator a, int gpus) {
        return a.place(PlacementRequest.whole("r" + (seq++), WorkloadClass.INFERENCE, gpus, gpus, List.of(Pool.INFERENCE),
                NodeConstraints.NONE), false, 0).result();
    }

    private void hold(Allocator a, String node, int... gpus) {
        assertEquals(Ledger.Outcome.RESERVED,
                a.adopt(new Reservation("held" + (seq++), node, GpuBoard.mask(gpus), 1000, 0, 1, null, 0, false)));
    }

    @Test
    @DisplayName("Without a policy, TP4 on an HGX with 3+2 free per NUMA half takes a set across both halves")
    void noPolicyStraddles() {
        Allocator a = cluster(hgx("hgx-0", TopologyManagerPolicy.NONE));
        hold(a, "hgx-0", 0, 1, 4);
        PlacementResult.Placed p = assertInstanceOf(PlacementResult.Placed.class, place(a, 4));
        assertEquals(4, p.gpus().length);
    }

    @Test
    @DisplayName("single-numa-node: the same TP4 waits (a capacity reason), because the kubelet would refuse a straddling set")
    void singleNumaNodeRefusesStraddlingSet() {
        Allocator a = cluster(hgx("hgx-0", TopologyManagerPolicy.SINGLE_NUMA_NODE));
        hold(a, "hgx-0", 0, 1, 4);
        PlacementResult.Unschedulable u = assertInstanceOf(PlacementResult.Unschedulable.class, place(a, 4));
        assertTrue(u.hasReason(ReasonCode.NO_FREE_CLIQUE), u.message());
    }

    @Test
    @DisplayName("restricted: TP4 is kept inside one NUMA half (the fewest NUMA nodes that can hold 4)")
    void restrictedKeepsTp4InOneHalf() {
        Allocator a = cluster(hgx("hgx-0", TopologyManagerPolicy.RESTRICTED));
        hold(a, "hgx-0", 0, 4);
        assertInstanceOf(PlacementResult.Unschedulable.class, place(a, 4));
        a.release(a.ledger().all().iterator().next().id()); // free GPU 0 again: NUMA half 0 is whole
        PlacementResult.Placed p = assertInstanceOf(PlacementResult.Placed.class, place(a, 4));
        assertArrayEquals(new int[] {0, 1, 2, 3}, p.gpus());
    }

    @Test
    @DisplayName("restricted admits TP8 across both halves; single-numa-node never can, and says why")
    void tp8UnderBothPolicies() {
        Allocator restricted = cluster(hgx("hgx-r", TopologyManagerPolicy.RESTRICTED));
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7},
                assertInstanceOf(PlacementResult.Placed.class, place(restricted, 8)).gpus());
        Allocator single = cluster(hgx("hgx-s", TopologyManagerPolicy.SINGLE_NUMA_NODE));
        PlacementResult.Unschedulable u = assertInstanceOf(PlacementResult.Unschedulable.class, place(single, 8));
        assertTrue(u.hasReason(ReasonCode.TOPOLOGY_POLICY), u.message());
        assertTrue(u.message().contains("single-numa-node and no NUMA node with 8 GPUs"), u.message());
    }

    @Test
    @DisplayName("Next to an unconstrained node of the same board, the single-numa-node node still gets only aligned sets")
    void policyIsPerNode() {
        Allocator a = cluster(hgx("hgx-s", TopologyManagerPolicy.SINGLE_NUMA_NODE), hgx("hgx-n", TopologyManagerPolicy.NONE));
        hold(a, "hgx-s", 0, 1, 4);
        hold(a, "hgx-n", 0, 1, 2, 3, 4, 5, 6, 7);
        assertInstanceOf(PlacementResult.Unschedulable.class, place(a, 4));
        PlacementResult.Placed two = assertInstanceOf(PlacementResult.Placed.class, place(a, 2));
        assertEquals("hgx-s", two.node());
        assertTrue(TopologyManagerPolicy.SINGLE_NUMA_NODE.admits(Boards.HGX_H100, two.gpuMask()));
    }
}
