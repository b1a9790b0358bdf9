package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class OptimalBoundTest {
    @Test
    void cpSatPacksTheSharesThatAnOnlineBestFitWouldStrand() {
        SimCluster c = new SimCluster(List.of(new OpenbNode("a", 32000, 65536, 1, "T4"), new OpenbNode("b", 32000, 65536, 1, "T4")),
                new OpenbBoards());
        // 600 + 400 fill one GPU and 500 + 500 the other: every milli is placeable, but only in pairs
        List<SimPod> pods = List.of(SimFixtures.share(600), SimFixtures.share(500), SimFixtures.share(500), SimFixtures.share(400));
        OptimalBound.Result r = OptimalBound.solve(c, pods, 10);
        assertEquals("OPTIMAL", r.status());
        assertEquals(2000, r.optimumMilli());
    }

    @Test
    void cpuBindsTheOptimumToo() {
        SimCluster c = new SimCluster(List.of(new OpenbNode("a", 4000, 65536, 2, "T4")), new OpenbBoards());
        List<SimPod> pods = List.of(new SimPod("x", 3000, 1, 1, 1000, "", -1), new SimPod("y", 3000, 1, 1, 1000, "", -1));
        assertEquals(1000, OptimalBound.solve(c, pods, 10).optimumMilli());
    }
}
