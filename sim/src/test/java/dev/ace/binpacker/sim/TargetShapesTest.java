package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.FragmentationScorer;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.WorkloadClass;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The production fragmentation target on the openb lists that pin GPU models (issue 20, the gpuspec
 * lists): a pinned pod's CPU, share and model list make a shape of their own, so {@code gpuspec33}
 * has 320 distinct GPU shapes. Capped at 64 the target left out 14 % of the pods, most of them
 * pinned, and the GPUs they need counted as free for nobody; the production cap keeps at least 95 %
 * of them, FGD's own coverage.
 */
class TargetShapesTest {
    private record Key(int gpus, int milli, long cpu, String spec) {}

    private static List<SimPod> gpuspec33() throws IOException {
        return OpenbLoader.pods(SimFixtures.OPENB.resolve("openb_pod_list_gpuspec33.csv"), new HashMap<>())
                .stream().filter(p -> !p.cpuOnly()).toList();
    }

    /** Observes every GPU pod of the list as AcePolicy asks for it; the scorer's target size. */
    private static int targetAfter(List<SimPod> pods, PackerConfig config) {
        FragmentationScorer f = config.fragmentation();
        for (SimPod p : pods) {
            NodeConstraints c = p.spec().isEmpty() ? NodeConstraints.NONE : AcePolicy.modelConstraint(p.spec());
            f.observe(new PlacementRequest(p.name(), WorkloadClass.UNKNOWN, p.numGpu(), p.milli(), 1, List.of(Pool.GENERAL), c, p.cpuMilli(), null));
        }
        return f.targetSize();
    }

    /** Share of the pods whose shape is among the {@code k} most frequent, counted here from the list itself. */
    private static double coverOfTop(List<SimPod> pods, int k, boolean pinnedOnly) {
        Map<Key, Integer> counts = new HashMap<>();
        for (SimPod p : pods) counts.merge(new Key(p.numGpu(), p.milli(), p.cpuMilli(), p.spec()), 1, Integer::sum);
        List<Map.Entry<Key, Integer>> sorted = new ArrayList<>(counts.entrySet());
        sorted.sort((a, b) -> Integer.compare(b.getValue(), a.getValue()));
        long in = 0, all = 0;
        for (int i = 0; i < sorted.size(); i++) {
            if (pinnedOnly && sorted.get(i).getKey().spec().isEmpty()) continue;
            all += sorted.get(i).getValue();
            if (i < k) in += sorted.get(i).getValue();
        }
        return (double) in / all;
    }

    @Test
    void the_production_target_keeps_the_pinned_shapes_of_a_gpuspec_list() throws IOException {
        List<SimPod> pods = gpuspec33();
        int production = targetAfter(pods, PackerConfig.defaults());
        assertEquals(FragmentationScorer.TARGET_SHAPES, production, "more distinct shapes than the cap: the target is full");
        assertTrue(coverOfTop(pods, production, false) >= 0.95, "at least FGD's 95 % of the pods: " + coverOfTop(pods, production, false));
        assertTrue(coverOfTop(pods, production, true) >= 0.90, "and of the pinned pods: " + coverOfTop(pods, production, true));
    }

    @Test
    void the_cap_before_left_out_a_seventh_of_the_pods_most_of_them_pinned() throws IOException {
        List<SimPod> pods = gpuspec33();
        int before = targetAfter(pods, PackerConfig.defaults().withTargetShapes(FragmentationScorer.TARGET_SHAPES_BEFORE));
        assertEquals(64, before);
        double all = coverOfTop(pods, before, false), pinned = coverOfTop(pods, before, true);
        assertTrue(all < 0.90, "64 shapes cover under 90 % of the pods: " + all);
        assertTrue(pinned < all, "the pinned pods are the ones left out: " + pinned + " against " + all);
    }
}
