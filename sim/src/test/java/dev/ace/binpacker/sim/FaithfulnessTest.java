package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reduced faithfulness check for CI (two seeds on openb-default; the ten-seed runs on three lists
 * are in docs/benchmarks.md). The baselines run as the FGD authors run them: their plugin alone,
 * ties to the smallest node name - in their simulator a seeded random node order, since it prefixes
 * every node name with a permutation index - Random one uniform feasible node. Two seeds move a mean by up to
 * a few tenths (Random's seed-to-seed spread is 0.3), so: BestFit and FGD within 0.5 point of the
 * published 93.08 and 95.39, Random within 1; FGD's fragmentation rate within 1 point at 50, 70 and
 * 80 % arrival. On the CPU-heavy {@code cpu250}, where name-order ties cost FGD 1.6 points, FGD
 * within 0.5 of the published 93.41. DotProd (their {@code -dimext merge -norm max}) and Clustering (every share
 * one affinity) within 0.5 of the published 90.85 and 91.88; before they ran as this simulator had guessed them
 * (node-normalised vectors, a share's GPU tried one by one; a kind per share size) they were +2.0 and -4.4 off.
 */
class FaithfulnessTest {
    private static ProtocolA protocol;

    @BeforeAll
    static void load() throws Exception {
        SimCluster c = SimFixtures.openbNodes();
        protocol = new ProtocolA(c, OpenbLoader.pods(SimFixtures.OPENB.resolve("openb_pod_list_default.csv"), c.modelIndex()));
    }

    private static PolicySummary twoSeeds(String policy) {
        List<RunResult> runs = new ArrayList<>();
        for (long seed = 42; seed <= 43; seed++) runs.add(protocol.run(policy, seed, 130));
        return PolicySummary.of(policy, runs);
    }

    @Test
    void fgdLandsOnThePublishedAllocationOnTheCpuHeavyList() throws Exception {
        SimCluster c = SimFixtures.openbNodes();
        ProtocolA cpu250 = new ProtocolA(c, OpenbLoader.pods(SimFixtures.OPENB.resolve("openb_pod_list_cpu250.csv"), c.modelIndex()));
        List<RunResult> runs = new ArrayList<>();
        for (long seed = 42; seed <= 43; seed++) runs.add(cpu250.run("fgd", seed, 130));
        assertEquals(93.41, PolicySummary.of("fgd", runs).allocationAt(130), 0.5);
    }

    @Test
    void bestFitLandsOnThePublishedAllocationAtOneHundredThirtyPercent() {
        assertEquals(93.08, twoSeeds("best-fit").allocationAt(130), 0.5);
    }

    @Test
    void fgdLandsOnThePublishedAllocationAndFragmentationCurve() {
        PolicySummary fgd = twoSeeds("fgd");
        assertEquals(95.39, fgd.allocationAt(130), 0.5);
        assertEquals(17.86, fgd.fragRateAt(50), 1.0);
        assertEquals(23.17, fgd.fragRateAt(70), 1.0);
        assertEquals(29.86, fgd.fragRateAt(80), 1.0);
    }

    @Test
    void dotProductLandsOnThePublishedAllocation() {
        assertEquals(90.85, twoSeeds("dot-prod").allocationAt(130), 0.5);
    }

    @Test
    void clusteringLandsOnThePublishedAllocation() {
        assertEquals(91.88, twoSeeds("clustering").allocationAt(130), 0.5);
    }

    @Test
    void randomLandsNearThePublishedAllocation() {
        assertEquals(87.47, twoSeeds("random").allocationAt(130), 1.0);
    }

    @Test
    void aceAllocatesMoreThanBestFitOnTheSameArrivals() {
        assertTrue(twoSeeds("ace").allocationAt(130) > twoSeeds("best-fit").allocationAt(130));
    }
}
