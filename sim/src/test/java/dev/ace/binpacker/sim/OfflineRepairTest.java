package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class OfflineRepairTest {
    private static final SimCluster TWO_T4 = new SimCluster(
            List.of(new OpenbNode("a", 32000, 65536, 1, "T4"), new OpenbNode("b", 32000, 65536, 1, "T4")), new OpenbBoards());

    @Test
    void moves_a_placed_share_so_a_refused_one_fits_and_every_milli_is_used() {
        List<SimPod> pods = List.of(SimFixtures.share(500), SimFixtures.share(600), SimFixtures.share(400), SimFixtures.share(500));
        // online: 500 on a, 600 on b, the other two refused
        OfflineRepair.Assignment online = new OfflineRepair.Assignment(new int[] {0, 1, -1, -1}, new long[] {1, 1, 0, 0}, 1100);
        OfflineRepair.Assignment r = OfflineRepair.improve(TWO_T4, pods, online, 5);
        assertEquals(2000, r.allocatedMilli());
        long[] used = new long[2];
        for (int p = 0; p < pods.size(); p++) {
            assertTrue(r.node()[p] >= 0, "pod " + p + " left out");
            used[r.node()[p]] += pods.get(p).milli();
        }
        assertEquals(1000, used[0]);
        assertEquals(1000, used[1]);
    }

    @Test
    void drops_a_cpu_only_pod_that_starves_a_gpu_pod_of_cpu() {
        SimCluster c = new SimCluster(List.of(new OpenbNode("a", 4000, 65536, 1, "T4")), new OpenbBoards());
        List<SimPod> pods = List.of(new SimPod("cpu", 3000, 1, 0, 0, "", -1), new SimPod("gpu", 2000, 1, 1, 1000, "", -1));
        OfflineRepair.Assignment online = new OfflineRepair.Assignment(new int[] {0, -1}, new long[] {0, 0}, 0);
        OfflineRepair.Assignment r = OfflineRepair.improve(c, pods, online, 5);
        assertEquals(1000, r.allocatedMilli());
        assertEquals(-1, r.node()[0]);
    }

    @Test
    void never_ends_below_the_online_placement_and_seeds_cp_sat() {
        List<SimPod> pods = List.of(SimFixtures.whole(1), SimFixtures.share(300), SimFixtures.share(800));
        OfflineRepair.Assignment online = OfflineRepair.online(TWO_T4, pods, TargetWorkload.of(pods, 95), "best-fit", 1);
        OfflineRepair.Assignment r = OfflineRepair.improve(TWO_T4, pods, online, 5);
        assertTrue(r.allocatedMilli() >= online.allocatedMilli());
        assertTrue(OptimalBound.solve(TWO_T4, pods, 10, r).optimumMilli() >= r.allocatedMilli());
    }
}
