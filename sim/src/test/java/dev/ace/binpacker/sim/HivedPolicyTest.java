package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class HivedPolicyTest {
    private final TargetWorkload any = new TargetWorkload(new long[]{0}, new int[]{1000}, new int[]{1}, new int[]{-1}, new double[]{1});

    private SimContext twoNodesFirstHoldsGpu0() {
        SimContext c = SimFixtures.context(List.of(
                new OpenbNode("split", 96000, 393216, 8, "G2"),
                new OpenbNode("whole", 96000, 393216, 8, "G2")), any);
        SimFixtures.hold(c, "gpu0", 0, 1L, 1000);
        return c;
    }

    @Test
    void oneGpuTakesTheBuddyOfTheUsedGpuSoNoWholePairBreaks() {
        SimContext c = twoNodesFirstHoldsGpu0();
        new HivedPolicy(c).place(SimFixtures.whole(1), "p");
        assertEquals(0b11111100L, c.state().freeMask(0), "GPU 1, the split pair's other half");
        assertEquals(0xFFL, c.state().freeMask(1));
    }

    @Test
    void twoGpusTakeAPairInsideTheAlreadySplitHalfBeforeAWholeNode() {
        SimContext c = twoNodesFirstHoldsGpu0();
        new HivedPolicy(c).place(SimFixtures.whole(2), "p");
        assertEquals(0b11110010L, c.state().freeMask(0), "pair 2-3 of the split half 0-3");
        assertEquals(0xFFL, c.state().freeMask(1));
    }
}
