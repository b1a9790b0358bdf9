package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * DotProd and Clustering decide as the FGD authors' plugins do (dot_product_score.go with {@code -dimext merge
 * -norm max}; gpu_clustering_score.go with their GPU affinity), on small hand-made clusters.
 */
class DotProdAndClusteringTest {
    private SimContext cluster(int nodes, int gpus) {
        List<OpenbNode> list = new java.util.ArrayList<>();
        for (int i = 0; i < nodes; i++) list.add(new OpenbNode("n" + i, 96000, 393216, gpus, "V100M16"));
        return SimFixtures.context(list, SimFixtures.ONE_GPU);
    }

    @Test
    void the_dot_product_score_is_the_merged_vectors_over_the_largest_spec_halved() {
        SimContext c = cluster(1, 8);
        // (96 of 128 CPUs free) x (1 of 128) + (8,000 of 8,000 milli free) x (1,000 of 8,000), halved: 0.0654...
        assertEquals(93, new DotProdPolicy(c).score(0, SimFixtures.whole(1)));
        SimFixtures.hold(c, "six", 0, 0b111111L, 1000);
        // (2,000 / 8,000) x (1,000 / 8,000): 0.03125 + 0.005859375, halved: 0.0185
        assertEquals(98, new DotProdPolicy(c).score(0, SimFixtures.whole(1)));
    }

    @Test
    void dot_product_sends_a_pod_where_free_gpu_aligns_least_and_a_share_to_the_fullest_gpu_it_fits() {
        SimContext c = cluster(2, 8);
        SimFixtures.hold(c, "six", 1, 0b111111L, 1000);
        SimFixtures.hold(c, "half", 1, 0b1000000L, 500);
        DotProdPolicy p = new DotProdPolicy(c);
        p.place(SimFixtures.share(250), "s");
        assertEquals(250, c.state().milliFree(1, 6), "node 1 (1,500 milli free against 8,000): on its half-used GPU 6, the best fit");
        assertEquals(8000, java.util.stream.IntStream.range(0, 8).map(g -> c.state().milliFree(0, g)).sum(), "node 0 untouched");
    }

    @Test
    void clustering_puts_shares_of_any_size_together_and_forgets_a_pod_that_left() {
        SimContext c = cluster(3, 2);
        ClusteringPolicy p = new ClusteringPolicy(c);
        p.place(SimFixtures.share(500), "first");
        int node = c.state().indexOf(c.ledger().get("first").orElseThrow().node());
        p.place(SimFixtures.share(250), "second");
        assertEquals(c.ledger().get("first").orElseThrow().node(), c.ledger().get("second").orElseThrow().node(),
                "a 250 share joins the 500 one: every share is the one affinity share-gpu (band 75-100), not a new kind");
        assertEquals(Set.of(0), p.kindsOn(node));
        p.place(SimFixtures.whole(1), "whole");
        assertEquals(Set.of(0), p.kindsOn(node), "a whole GPU goes to an idle node (band 25-50), not beside the shares (0-25)");
        p.release("first");
        p.release("second");
        assertEquals(Set.of(), p.kindsOn(node), "the node is idle again once its shares left");
    }
}
