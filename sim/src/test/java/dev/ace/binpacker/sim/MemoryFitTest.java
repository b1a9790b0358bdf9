package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * With memory enforced (the default of {@code simulate} on openb, as kube-scheduler's NodeResourcesFit in the FGD
 * authors' simulator), no policy puts a pod where its memory does not fit beside the pods there; ACE checks it in
 * its engine, from the nodes' memory as allocatable and the pods' as requests, and gives it back on departure.
 */
class MemoryFitTest {
    /** Node 0: 8 GPUs and 16 GiB of memory; node 1: 8 GPUs and 256 GiB. */
    private SimContext cluster(boolean memory) {
        return SimContext.fresh(new SimCluster(List.of(new OpenbNode("small-mem", 96000, 16384, 8, "V100M16"),
                new OpenbNode("big-mem", 96000, 262144, 8, "V100M16")), new OpenbBoards(), memory), SimFixtures.ONE_GPU, 1);
    }

    private static SimPod gpus(int n, long memMib) { return new SimPod("p", 1000, memMib, n, 1000, "", -1); }

    private static String nodeOf(Policy p, String id) { return p.reservation(id).orElseThrow().node(); }

    @Test
    void no_policy_places_a_pod_beside_others_whose_memory_it_would_overrun() {
        for (String name : List.of("ace", "fgd", "best-fit", "dot-prod", "clustering", "packing", "random")) {
            SimContext c = cluster(true);
            Policy p = Policies.create(name, c);
            assertTrue(p.place(gpus(1, 12288), "a"), name);
            String first = nodeOf(p, "a");
            assertTrue(p.place(gpus(1, 12288), "b"), name);
            assertTrue(!first.equals("small-mem") || !nodeOf(p, "b").equals("small-mem"),
                    name + ": two 12 GiB pods never share the 16 GiB node");
            assertFalse(p.place(gpus(1, 300_000), "huge"), name + ": a pod asking more memory than any node has does not fit");
        }
    }

    @Test
    void ace_gives_a_departed_pods_memory_back_and_ignores_memory_when_the_run_does() {
        SimContext c = cluster(true);
        Policy ace = Policies.create("ace", c);
        for (int i = 0; i < 16; i++) assertTrue(ace.place(gpus(1, 2048), "p" + i), "16 GPUs of 2 GiB each: the 16 GiB node holds 8 exactly");
        assertFalse(ace.place(gpus(1, 1024), "17th"), "no GPU left");
        String onSmall = null;
        for (int i = 0; i < 16 && onSmall == null; i++) if (nodeOf(ace, "p" + i).equals("small-mem")) onSmall = "p" + i;
        ace.release(onSmall);
        assertTrue(ace.place(gpus(1, 2048), "again"), "its GPU and its 2 GiB are free again (the 16 GiB node was full)");
        assertEquals("small-mem", nodeOf(ace, "again"));

        SimContext loose = cluster(false);
        Policy ignoring = Policies.create("ace", loose);
        assertTrue(ignoring.place(gpus(1, 300_000), "huge"), "without memory enforced, memory is not looked at (the --ignore-memory runs)");
    }
}
