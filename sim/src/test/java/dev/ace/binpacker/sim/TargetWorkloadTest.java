package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TargetWorkloadTest {
    @Test
    void fragmentationOfOneNodeMatchesTheHandComputedValue() {
        // shapes: 1x500 milli with 1 core (p .5), CPU-only (p .25), 2 whole GPUs (p .25)
        TargetWorkload t = new TargetWorkload(new long[]{1000, 1000, 0}, new int[]{500, 0, 1000}, new int[]{1, 0, 2},
                new int[]{-1, -1, -1}, new double[]{0.5, 0.25, 0.25});
        int[] free = {1000, 300, 0, 700};
        // 1x500 fits (GPUs 0 and 3): only GPU 1's 300 is lost -> .5 * 300
        // CPU-only uses no GPU: all 2000 free milli -> .25 * 2000
        // 2 whole GPUs do not fit (one free GPU): all 2000 -> .25 * 2000
        assertEquals(150 + 500 + 500, t.nodeFrag(free, 4, 2000, 0), 1e-9);
        // without the core the share shape no longer fits either
        assertEquals(1000 + 500 + 500, t.nodeFrag(free, 4, 500, 0), 1e-9);
    }

    @Test
    void aShapeConstrainedToAnotherModelSeesTheWholeNodeAsFragmented() {
        TargetWorkload t = new TargetWorkload(new long[]{0}, new int[]{500}, new int[]{1}, new int[]{1 << 3}, new double[]{1});
        assertEquals(1000, t.nodeFrag(new int[]{1000}, 1, 8000, 0), 1e-9);
        assertEquals(0, t.nodeFrag(new int[]{1000}, 1, 8000, 3), 1e-9);
    }

    @Test
    void targetWorkloadKeepsTheMostPopularShapesCoveringNinetyFivePercent() {
        List<SimPod> pods = new ArrayList<>();
        for (int i = 0; i < 90; i++) pods.add(new SimPod("a" + i, 4000, 1, 1, 1000, "", -1));
        for (int i = 0; i < 6; i++) pods.add(new SimPod("b" + i, 2000, 1, 1, 500, "", -1));
        for (int i = 0; i < 4; i++) pods.add(new SimPod("c" + i, 1000, 1, 0, 0, "", -1));
        TargetWorkload t = TargetWorkload.of(pods, 95);
        assertEquals(2, t.size(), "90 + 6 pods reach 95 %; the CPU-only shape is left out");
        assertEquals(90 / 96.0, t.p[0], 1e-9);
    }
}
