package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where FGD's fragmentation term ranks against TP capacity. The case: a TP 4 already holds one
 * NUMA half of an HGX node, another HGX node is clean, and the packer has seen TP 4 requests. A
 * lone GPU in the used half leaves 3 free GPUs that no TP 4 can use (FGD counts them as
 * fragmented); on the clean node it breaks the only free 8-clique. The webhook's engine keeps the
 * clique; weighed on one scale, fragmentation wins and the clean domain is split.
 */
class FragmentationWeightTest {
    private static Allocator fleet(PackerConfig config) {
        ClusterState state = new ClusterState();
        state.upsert(Boards.node("used", Pool.INFERENCE, Boards.HGX_H100));
        state.upsert(Boards.node("clean", Pool.INFERENCE, Boards.HGX_H100));
        Allocator a = new Allocator(state, config);
        for (int i = 0; i < 50; i++) a.packer().observe(request("seen" + i, 4));
        assertEquals(Ledger.Outcome.RESERVED, a.adopt(new Reservation("tp4", "used", GpuBoard.mask(0, 1, 2, 3), 1000, 0, 4, null, 0, false)));
        return a;
    }

    private static PlacementRequest request(String id, int gpus) {
        return PlacementRequest.whole(id, WorkloadClass.INFERENCE, gpus, gpus, List.of(Pool.INFERENCE), NodeConstraints.NONE);
    }

    private static String nodeFor(Allocator a) {
        PlacementResult r = a.place(request("one", 1), true, 0).result();
        return assertInstanceOf(PlacementResult.Placed.class, r).node();
    }

    @Test
    void the_webhooks_engine_fills_the_used_half_and_keeps_the_clean_8_clique() {
        assertEquals("used", nodeFor(fleet(PackerConfig.defaults())));
    }

    @Test
    void the_same_engine_without_its_fragmentation_term_decides_the_same() {
        assertEquals("used", nodeFor(fleet(PackerConfig.defaults().withoutFragmentation())));
    }

    @Test
    void fragmentation_on_the_same_scale_as_tp_capacity_splits_the_clean_domain() {
        assertEquals("clean", nodeFor(fleet(PackerConfig.defaults().withFragmentation(FragmentationScorer.TP_PER_GPU))));
    }
}
