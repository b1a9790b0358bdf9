package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * TP damage net of the request's own footprint (issue 20, openb multigpu lists). A wholly free
 * 8-GPU PCIe node ("pcie8", index 0) and a wholly free NVLink quad ("quad"); 8-GPU and 4-GPU
 * batch work has been seen. A 4-GPU batch pod that takes the whole quad uses the quad for what
 * it is worth: it destroys no more than the same pod on half of the PCIe node, so fragmentation
 * decides, and the quad keeps the 8-GPU node whole for the 8-GPU work.
 */
class FootprintTest {
    private static Allocator fleet(PackerConfig config) {
        ClusterState state = new ClusterState();
        state.upsert(Boards.node("pcie8", Pool.GENERAL, Boards.pcie(8)));
        state.upsert(Boards.node("quad", Pool.GENERAL, Boards.nvswitch(4, 2)));
        Allocator a = new Allocator(state, config);
        for (int i = 0; i < 50; i++) {
            a.packer().observe(batch("eight" + i, 8));
            a.packer().observe(batch("four" + i, 4));
        }
        return a;
    }

    private static PlacementRequest batch(String id, int gpus) {
        return PlacementRequest.whole(id, WorkloadClass.BATCH, gpus, 1, List.of(Pool.GENERAL), NodeConstraints.NONE);
    }

    private static String nodeFor(Allocator a, int gpus) {
        return assertInstanceOf(PlacementResult.Placed.class, a.place(batch("pod", gpus), true, 0).result()).node();
    }

    @Test
    void a_4_gpu_pod_takes_the_whole_quad_and_keeps_the_8_gpu_node_whole() {
        assertEquals("quad", nodeFor(fleet(PackerConfig.defaults()), 4));
    }

    @Test
    void counted_gross_the_quads_nvlink_capacity_sent_it_to_break_the_8_gpu_node() {
        assertEquals("pcie8", nodeFor(fleet(PackerConfig.defaults().withMix(DemandMix.inferenceDefault())), 4));
    }

    @Test
    void a_lone_gpu_still_does_not_break_the_free_quad_while_a_pcie_gpu_is_free() {
        // beyond its own GPU it would destroy the quad's pairs and the quad itself
        assertEquals("pcie8", nodeFor(fleet(PackerConfig.defaults()), 1));
    }

    @Test
    void a_tp_replica_is_counted_gross_a_pod_of_any_gpus_net() {
        DemandMix mix = PackerConfig.defaults().mix();
        assertEquals(false, mix.netFor(true), "every candidate of a TP k replica uses one k-clique: gross ranks them");
        assertEquals(true, mix.netFor(false));
        assertEquals(true, DemandMix.inferenceDefault().netForCliquesToo().netFor(true), "the ace-net-all variant");
    }

    @Test
    void a_tp4_replica_fills_the_half_used_board_and_keeps_the_free_one_whole() {
        ClusterState state = new ClusterState();
        state.upsert(Boards.node("fresh", Pool.INFERENCE, Boards.nvswitch(8, 2)));
        state.upsert(Boards.node("half", Pool.INFERENCE, Boards.nvswitch(8, 2)));
        Allocator a = new Allocator(state, PackerConfig.defaults());
        a.place(PlacementRequest.whole("first", WorkloadClass.INFERENCE, 4, 4, List.of(Pool.INFERENCE), NodeConstraints.NONE), false, 0);
        String first = a.reservation("first").orElseThrow().node();
        PlacementRequest tp4 = PlacementRequest.whole("second", WorkloadClass.INFERENCE, 4, 4, List.of(Pool.INFERENCE), NodeConstraints.NONE);
        assertEquals(first, assertInstanceOf(PlacementResult.Placed.class, a.place(tp4, true, 0).result()).node());
    }
}
