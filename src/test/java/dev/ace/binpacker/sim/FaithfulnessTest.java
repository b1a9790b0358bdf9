package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reduced faithfulness check for CI (two seeds on openb-default; the ten-seed run and its figures
 * are in docs/benchmarks.md). Two seeds move the mean by a few tenths, so the tolerances here are
 * the documented ones: BestFit within 0.5 point of the published 93.08; FGD's fragmentation rate
 * within 2 points at 50 and 70 % arrival; FGD's allocation within 2.5 points of the published 95.39
 * (the known gap this simulator has not closed, see docs/benchmarks.md).
 */
class FaithfulnessTest {
    private static ProtocolA protocol;

    @BeforeAll
    static void load() throws Exception {
        SimCluster c = new SimCluster(OpenbLoader.nodes(SimFixtures.OPENB.resolve("openb_node_list_gpu_node.csv")), new OpenbBoards());
        protocol = new ProtocolA(c, OpenbLoader.pods(SimFixtures.OPENB.resolve("openb_pod_list_default.csv"), c.modelIndex()));
    }

    private static PolicySummary twoSeeds(String policy) {
        List<RunResult> runs = new ArrayList<>();
        for (long seed = 42; seed <= 43; seed++) runs.add(protocol.run(policy, seed, 130));
        return PolicySummary.of(policy, runs);
    }

    @Test
    void bestFitLandsOnThePublishedAllocationAtOneHundredThirtyPercent() {
        assertEquals(93.08, twoSeeds("best-fit").allocationAt(130), 0.5);
    }

    @Test
    void fgdFragmentationFollowsThePublishedCurveAndItsAllocationStaysNearThePaper() {
        PolicySummary fgd = twoSeeds("fgd");
        assertEquals(17.86, fgd.fragRateAt(50), 2.0);
        assertEquals(23.17, fgd.fragRateAt(70), 2.0);
        assertEquals(95.39, fgd.allocationAt(130), 2.5);
    }

    @Test
    void aceAllocatesMoreThanBestFitOnTheSameArrivals() {
        assertTrue(twoSeeds("ace").allocationAt(130) > twoSeeds("best-fit").allocationAt(130));
    }
}
