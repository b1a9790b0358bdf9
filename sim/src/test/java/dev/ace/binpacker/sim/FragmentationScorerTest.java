package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.FragmentationScorer;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.WorkloadClass;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine's learned fragmentation measure (placement.FragmentationScorer), on a tiny openb-like cluster. */
class FragmentationScorerTest {
    private static PlacementRequest share(int milli) {
        return new PlacementRequest("r", WorkloadClass.UNKNOWN, 1, milli, 1, List.of(Pool.GENERAL), NodeConstraints.NONE, 0, null);
    }

    @Test
    void aShareOnAGpuTheLearnedWorkloadCannotUseAnywayAddsNoFragmentation() {
        SimContext c = SimFixtures.context(List.of(new OpenbNode("n", 32000, 65536, 2, "T4")),
                new TargetWorkload(new long[0], new int[0], new int[0], new int[0], new double[0]));
        SimFixtures.hold(c, "half", 0, 1L, 500); // GPU 0 has 500 left, GPU 1 is whole
        FragmentationScorer f = new FragmentationScorer();
        f.observe(share(600)); // the workload seen so far: 600-milli shares

        assertEquals(-500, f.delta(c.state(), 0, 1L, 500, 0), 1e-9, "uses up the 500 milli no 600 share fits in");
        assertEquals(400, f.delta(c.state(), 0, 2L, 600, 0), 1e-9, "leaves 400 on GPU 1 that no 600 share fits in");
        assertTrue(f.delta(c.state(), 0, 1L, 500, 0) < f.delta(c.state(), 0, 2L, 500, 0));
    }

    @Test
    void untilARequestIsSeenThereIsNoTargetAndNoFragmentation() {
        SimContext c = SimFixtures.context(List.of(new OpenbNode("n", 32000, 65536, 2, "T4")),
                new TargetWorkload(new long[0], new int[0], new int[0], new int[0], new double[0]));
        FragmentationScorer f = new FragmentationScorer();
        assertEquals(0, f.targetSize());
        assertEquals(0, f.delta(c.state(), 0, 1L, 500, 0), 1e-9);
    }
}
