package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * GPU shares in the production engine (issue 20, the share lists): the demand mix counts a share as
 * its fraction of a single GPU, and a share that takes a wholly free GPU pays below its NVLink damage
 * only the fragmentation it adds, as FGD scores it.
 */
class ShareRulesTest {
    private static PlacementRequest share(String id, int milli) {
        return new PlacementRequest(id, WorkloadClass.UNKNOWN, 1, milli, 1, List.of(Pool.GENERAL), NodeConstraints.NONE, 0, null);
    }

    @Test
    void shares_are_single_gpu_demand_in_the_mix_only_when_counted() {
        DemandMix counted = DemandMix.inferenceDefault().countingShares();
        DemandMix unseen = DemandMix.inferenceDefault();
        double prior = unseen.weight(0);
        for (int i = 0; i < 2000; i++) {
            counted.observeShare(500);
            unseen.observeShare(500);
        }
        assertTrue(counted.weight(0) >= 0.9, "a stream of shares is single-GPU demand: " + counted);
        assertEquals(prior, unseen.weight(0), "without the rule shares are no demand: " + unseen);
    }

    /**
     * One PCIe x4 board (pairs 0-1 and 2-3): GPU 0 has 300 milli free, 1-3 are whole. GPU 1's pair
     * is broken already, so a 250 share on it breaks no block beyond the GPU itself. On GPU 0 it
     * leaves 50 milli no 250 share can use (FGD's cost 52), on GPU 1 it wastes nothing (cost 50).
     */
    private static long gpusOfAShare(PackerConfig config) {
        ClusterState state = new ClusterState();
        state.upsert(Boards.node("a", Pool.GENERAL, Boards.L40S));
        Allocator al = new Allocator(state, config);
        for (int i = 0; i < 50; i++) al.packer().observe(share("seen" + i, 250));
        assertEquals(Ledger.Outcome.RESERVED, al.adopt(new Reservation("held", "a", 0b0001, 700, 0, 1, null, 0, false)));
        PlacementResult r = al.place(share("one", 250), true, 0).result();
        return assertInstanceOf(PlacementResult.Placed.class, r).gpuMask();
    }

    @Test
    void a_share_takes_the_whole_gpu_where_it_fragments_least_as_fgd_does() {
        assertEquals(0b0010, gpusOfAShare(PackerConfig.defaults()));
    }

    @Test
    void the_rule_before_also_charged_the_single_gpu_and_squeezed_the_share_into_the_leftover() {
        assertEquals(0b0001, gpusOfAShare(PackerConfig.defaults().with(FragmentationScorer.ShareOnWholeGpu.SINGLE_GPU_COST)));
    }
}
