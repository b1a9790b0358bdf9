package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The decision rule below TP damage (issue 20): FGD's integer score, ties to the lowest node index.
 * Two PCIe boards, "a" (index 0) wholly free and "b" with 2 of its 4 GPUs taken; a lone GPU
 * destroys no NVLink capacity on either.
 */
class CoarseTieTest {
    private static String nodeForOneGpu(PackerConfig config, int seenGpus) {
        ClusterState state = new ClusterState();
        state.upsert(Boards.node("a", Pool.GENERAL, Boards.L40S));
        state.upsert(Boards.node("b", Pool.GENERAL, Boards.L40S));
        Allocator al = new Allocator(state, config);
        for (int i = 0; i < 50; i++) al.packer().observe(request("seen" + i, seenGpus));
        assertEquals(Ledger.Outcome.RESERVED, al.adopt(new Reservation("held", "b", 0b0011, 1000, 0, 1, null, 0, false)));
        PlacementResult r = al.place(request("one", 1), true, 0).result();
        return assertInstanceOf(PlacementResult.Placed.class, r).node();
    }

    private static PlacementRequest request(String id, int gpus) {
        return PlacementRequest.whole(id, WorkloadClass.BATCH, gpus, 1, List.of(Pool.GENERAL), NodeConstraints.NONE);
    }

    @Test
    void equal_fgd_scores_go_to_the_lowest_node_index_so_nodes_fill_in_order() {
        // only 1-GPU work seen: the GPU wastes nothing on either node, both score alike
        assertEquals("a", nodeForOneGpu(PackerConfig.defaults(), 1));
    }

    @Test
    void the_rule_before_issue_20_broke_the_tie_to_the_fuller_node() {
        assertEquals("b", nodeForOneGpu(PackerConfig.defaults().withFragmentation(FragmentationScorer.TP_FIRST), 1));
    }

    @Test
    void when_4_gpu_work_is_seen_the_score_keeps_the_whole_node_whole() {
        // on "a" the GPU leaves 3 free that no 4-GPU request can use; on "b" they were unusable already
        assertEquals("b", nodeForOneGpu(PackerConfig.defaults(), 4));
    }

    @Test
    void fgd_cost_is_its_integer_score_turned_around() {
        FragmentationScorer f = new FragmentationScorer(1.0, false, FragmentationScorer.TP_FIRST, true);
        assertEquals(50, f.cost(0));
        assertEquals(f.cost(-2000), f.cost(-1995), "a few milli-GPU either way is a tie (away from a step of the integer score)");
        assertEquals(1, f.cost(-5000));
        assertEquals(100, f.cost(8000));
        assertEquals(f.cost(-4000), f.lowestCost(4));
    }
}
