package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.cli.SimulateCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Protocol C on a small trace drawn from the repository's openb default list. */
class ProtocolCTest {
    private static final Path DEFAULT = Path.of("tests/traces/openb/openb_pod_list_default.csv");

    @Test
    void sharesMapToTheSmallestProfileWhoseSlicesCoverThem() throws Exception {
        assertEquals("1g.10gb", SlicingTrace.PROFILES[SlicingTrace.sizeIndex(142)]);
        assertEquals("2g.20gb", SlicingTrace.PROFILES[SlicingTrace.sizeIndex(143)]);
        assertEquals("4g.40gb", SlicingTrace.PROFILES[SlicingTrace.sizeIndex(571)]);
        assertEquals("7g.80gb", SlicingTrace.PROFILES[SlicingTrace.sizeIndex(572)]);
        assertThrows(IllegalArgumentException.class, () -> SlicingTrace.sizeIndex(1001));
        List<SlicingTrace.Share> shares = SlicingTrace.shares(DEFAULT);
        assertEquals(3078, shares.size(), "the default list's one-GPU pods with gpu_milli under 1000");
        assertTrue(shares.stream().allMatch(s -> s.seconds() <= SlicingTrace.CAP_SECONDS && s.milli() < 1000));
        assertThrows(java.io.IOException.class, () -> SlicingTrace.shares(Path.of("tests/traces/openb/openb_pod_list_multigpu50.csv")));
    }

    @Test
    void theFewestGpusMeetTheBoundAndOneNodeLessDoesNot() throws Exception {
        List<SlicingTrace.Pod> pods = SlicingTrace.generate(SlicingTrace.shares(DEFAULT), 5, 400, 30);
        ProtocolC c = new ProtocolC(2, 5);
        for (String policy : ProtocolC.POLICIES) {
            var make = c.slicer(policy, pods);
            ProtocolC.Result r = c.fewest(policy, 5, pods, make);
            assertTrue(r.gpus() > 0 && r.p95Minutes() <= 5, r.toString());
            int nodes = r.gpus() / 2;
            assertTrue(ProtocolC.replay(pods, make.apply(nodes))[0] <= 5, policy);
            if (nodes > 1) assertTrue(ProtocolC.replay(pods, make.apply(nodes - 1))[0] > 5, policy + " at " + (nodes - 1) + " nodes");
        }
    }

    @Test
    void withMoreGpusThanPodsNobodyWaitsAndPerClaimMigNeedsNoMoreThanWholeGpus() throws Exception {
        List<SlicingTrace.Pod> pods = SlicingTrace.generate(SlicingTrace.shares(DEFAULT), 9, 300, 30);
        ProtocolC c = new ProtocolC(4, 5);
        for (String policy : ProtocolC.POLICIES) {
            double p95 = ProtocolC.replay(pods, c.slicer(policy, pods).apply(100))[0];
            if (!policy.startsWith("ace-planner")) assertEquals(0.0, p95, policy);
            // the planners start all-balanced, which has no 4g or 7g: those pods wait for demand to
            // persist (30 min), the next tick (10 min) and the reconfiguration (15 min), no longer
            else assertTrue(p95 > 0 && p95 <= 55, policy + " " + p95);
        }
        // a whole GPU is one 7g.80gb instance: whatever whole GPUs place, per-claim MIG places too
        int whole = c.fewest("whole", 9, pods, c.slicer("whole", pods)).gpus();
        assertTrue(c.fewest("mig-keep-room", 9, pods, c.slicer("mig-keep-room", pods)).gpus() <= whole);
    }

    @Test
    void theStaticAllocationGivesEveryNodeAConfigInProportion() {
        List<String> a = StaticHindsight.allocate(new double[]{0, 0, 4, 0, 12}, 8);
        assertEquals(8, a.size());
        // 4 x 3g fill 2 GPUs, 12 x 7g fill 12: shares 1.14 and 6.86 of 8 nodes, the remainder to the larger fraction
        assertEquals(1, a.stream().filter("all-3g.40gb"::equals).count());
        assertEquals(7, a.stream().filter("all-7g.80gb"::equals).count());
    }

    @Test
    void simulateSlicingPrintsOneRowPerPolicyAndRefusesAnUnknownOne() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = new SimulateCommand().run(new String[]{"--trace", "slicing", "--seeds", "3", "--pods", "200", "--rate", "30",
            "--policies", "whole,mig-first-fit,ace-planner", "--gpus-per-node", "2", "--planner-window", "600"}, new PrintStream(out), new PrintStream(new ByteArrayOutputStream()));
        assertEquals(0, rc);
        String table = out.toString();
        assertTrue(table.contains("| whole |") && table.contains("| mig-first-fit |") && table.contains("| ace-planner |"), table);
        assertTrue(table.contains("1.00x") && table.contains("planner window 600 s"), table);
        assertThrows(IllegalArgumentException.class, () -> new SimulateCommand().run(new String[]{"--trace", "slicing", "--policies", "fgd"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream())));
    }
}
