package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class FgdPolicyTest {
    // The target workload is one shape: a 600-milli share. A GPU with 500 free is already lost to it.
    private final TargetWorkload sixHundred = new TargetWorkload(new long[]{0}, new int[]{600}, new int[]{1}, new int[]{-1}, new double[]{1});

    @Test
    void fgdPutsAShareOnTheGpuTheTargetWorkloadCanNoLongerUse() {
        SimContext c = SimFixtures.context(List.of(
                new OpenbNode("a", 32000, 65536, 1, "T4"),
                new OpenbNode("b", 32000, 65536, 2, "T4"),
                new OpenbNode("c", 32000, 65536, 2, "T4")), sixHundred);
        SimFixtures.hold(c, "half", 1, 1L, 500);
        SimFixtures.hold(c, "full", 1, 2L, 1000);

        new FgdPolicy(c).place(SimFixtures.share(500), "p");

        assertEquals(0, c.state().milliFree(1, 0), "node b, GPU 0: its 500 free milli were fragmented anyway");
        assertEquals(1000, c.state().milliFree(0, 0));
        assertEquals(1000, c.state().milliFree(2, 0));
    }

    @Test
    void fgdScoreIsTheAuthorsQuantisedSigmoid() {
        assertEquals(50, FgdPolicy.quantise(0));
        assertEquals(62, FgdPolicy.quantise(500));
        assertEquals(37, FgdPolicy.quantise(-500));
    }
}
