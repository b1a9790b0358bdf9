package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The baselines' deterministic ties follow the FGD authors' simulator: it prefixes every node name
 * with a seeded random permutation index before scheduling, so "the smallest name wins" is a random
 * node order fixed for the run, not the trace's name order.
 */
class TieOrderTest {
    private static final TargetWorkload ONE_GPU = new TargetWorkload(new long[]{0}, new int[]{1000}, new int[]{1}, new int[]{-1}, new double[]{1});
    private static final List<OpenbNode> THREE_EQUAL = List.of(
            new OpenbNode("a", 32000, 65536, 2, "T4"),
            new OpenbNode("b", 32000, 65536, 2, "T4"),
            new OpenbNode("c", 32000, 65536, 2, "T4"));

    private static SimContext withRank(SimContext c, int... rank) {
        return new SimContext(c.cluster(), c.state(), c.ledger(), c.rnd(), c.target(), c.frag(), c.memory(), rank);
    }

    @Test
    void aTieOfEqualNodesGoesToTheLowestRankNotTheSmallestName() {
        SimPod cpuPod = new SimPod("cpu", 4000, 1024, 0, 0, "", -1);
        SimContext byName = SimFixtures.context(THREE_EQUAL, ONE_GPU);
        new FgdPolicy(byName).place(cpuPod, "p");
        assertEquals("a", byName.ledger().get("p").orElseThrow().node(), "name order: the old rule");

        SimContext authors = withRank(SimFixtures.context(THREE_EQUAL, ONE_GPU), 2, 0, 1);
        new FgdPolicy(authors).place(cpuPod, "p");
        assertEquals("b", authors.ledger().get("p").orElseThrow().node(), "node b holds the permutation's index 0");

        SimContext bestFit = withRank(SimFixtures.context(THREE_EQUAL, ONE_GPU), 1, 2, 0);
        new BestFitPolicy(bestFit).place(SimFixtures.whole(1), "w");
        assertEquals("c", bestFit.ledger().get("w").orElseThrow().node(), "every scoring baseline shares the rule");
    }

    @Test
    void theRunsNodeOrderIsASeededPermutationOfTheNameOrder() {
        SimCluster cluster = new SimCluster(THREE_EQUAL, new OpenbBoards());
        assertArrayEquals(new int[]{0, 1, 2}, SimContext.nameOrder(cluster));
        int[] r = SimContext.shuffledOrder(cluster, ProtocolA.nodeOrderSeed(42));
        assertArrayEquals(r, SimContext.shuffledOrder(cluster, ProtocolA.nodeOrderSeed(42)), "fixed for a seed, whatever the policy");
        int[] sorted = r.clone();
        Arrays.sort(sorted);
        assertArrayEquals(new int[]{0, 1, 2}, sorted);
    }

    @Test
    void differentSeedsGiveDifferentOrdersOnARealSizedCluster() {
        List<OpenbNode> many = IntStream.range(0, 50).mapToObj(i -> new OpenbNode(String.format("n%02d", i), 32000, 65536, 1, "T4")).toList();
        SimCluster cluster = new SimCluster(many, new OpenbBoards());
        int[] a = SimContext.shuffledOrder(cluster, ProtocolA.nodeOrderSeed(42));
        int[] b = SimContext.shuffledOrder(cluster, ProtocolA.nodeOrderSeed(43));
        assertFalse(Arrays.equals(a, b));
        assertFalse(Arrays.equals(a, SimContext.nameOrder(cluster)), "not the name order");
    }
}
