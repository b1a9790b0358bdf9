package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * CPU-only pods, which the webhook never sees, go in the {@code ace} row where FGD's score of the run's target
 * workload puts them, ties to the node whose GPUs are fullest; {@code ace-cpu-engine} keeps the rule before (the
 * engine's learned target, which holds only the GPU requests it has seen).
 */
class CpuOnlyRuleTest {
    /**
     * The run's target: one GPU with 8 cores. Node 0 ("tight"): 2 GPUs, one held, 10 cores; node 1 ("roomy"): 2 free
     * GPUs, 100 cores. A 4-core CPU-only pod on "tight" leaves 6 cores, so its free GPU is lost to the target (FGD
     * score 26); on "roomy" nothing is lost (50).
     */
    private static SimContext cluster() {
        TargetWorkload eightCores = new TargetWorkload(new long[]{8000}, new int[]{1000}, new int[]{1}, new int[]{-1}, new double[]{1});
        SimContext c = SimFixtures.context(List.of(new OpenbNode("tight", 10_000, 65536, 2, "V100M16"),
                new OpenbNode("roomy", 100_000, 65536, 2, "V100M16")), eightCores);
        SimFixtures.hold(c, "held", 0, 0b01, 1000);
        return c;
    }

    private static final SimPod CPU_ONLY = new SimPod("cpu", 4000, 1024, 0, 0, "", -1);

    private static String placed(String policy) {
        SimContext c = cluster();
        Policy p = Policies.create(policy, c);
        assertTrue(p.place(CPU_ONLY, "cpu"), policy);
        return p.reservation("cpu").orElseThrow().node();
    }

    @Test
    void a_cpu_only_pod_keeps_off_the_cpu_a_free_gpu_needs_as_fgd_scores_it() {
        assertEquals(50, FgdPolicy.quantise(0), "no fragmentation added: FGD's neutral score");
        assertEquals(26, FgdPolicy.quantise(-1000), "a whole free GPU lost to the target");
        assertEquals("roomy", placed("ace"));
        assertEquals("roomy", placed("fgd"), "the fgd row scores it the same way");
    }

    @Test
    void the_rule_before_saw_no_cpu_shape_and_went_to_the_fuller_gpus() {
        // the engine has seen no GPU request yet: its target is empty, every node ties, the fuller GPUs win
        assertEquals("tight", placed("ace-cpu-engine"));
    }
}
