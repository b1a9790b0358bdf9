package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.BatchRule;
import dev.ace.binpacker.placement.DemandMix;
import dev.ace.binpacker.placement.Earmarks;
import dev.ace.binpacker.placement.FragmentationScorer;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.placement.Pool;
import java.util.List;

/** Builds a policy by name for one run. */
public final class Policies {
    private Policies() {}

    public static Policy create(String name, SimContext c) {
        return switch (name) {
            case "random" -> new RandomPolicy(c);
            case "random-kube" -> new RandomPolicy(c).withKubeDefaults();
            case "best-fit" -> new BestFitPolicy(c);
            case "best-fit-kube" -> new BestFitPolicy(c).withKubeDefaults();
            case "fgd" -> new FgdPolicy(c);
            case "fgd-kube" -> new FgdPolicy(c).withKubeDefaults();
            case "dot-prod" -> new DotProdPolicy(c);
            case "packing" -> new PackingPolicy(c);
            case "clustering" -> new ClusteringPolicy(c);
            case "k8s-default" -> new K8sPolicy(c, K8sPolicy.Mode.DEFAULT);
            case "k8s-binpack" -> new K8sPolicy(c, K8sPolicy.Mode.BINPACK);
            case "device-plugin" -> new K8sPolicy(c, K8sPolicy.Mode.DEVICE_PLUGIN);
            case "hived" -> new HivedPolicy(c);
            case "ace" -> new AcePolicy(c, PackerConfig::defaults);
            case "ace-neutral" -> new AcePolicy(c, () -> gross().withMix(DemandMix.neutral()));
            case "ace-tp2-hgx" -> new AcePolicy(c, PackerConfig::defaults, false);
            case "ace-no-earmark" -> new AcePolicy(c, PackerConfig::defaults, true, Earmarks.Rule.OFF);
            case "ace-earmark-strict" -> new AcePolicy(c, PackerConfig::defaults, true, Earmarks.Rule.STRICT);
            // the engine without the starvation bound (issue 34): the oldest TP waiter's earmark stays soft however long it waits
            case "ace-no-bound" -> new AcePolicy(c, PackerConfig::defaults, true, Allocator.DEFAULT_EARMARKS, Earmarks.NO_BOUND);
            case "ace-nofrag" -> new AcePolicy(c, () -> PackerConfig.defaults().withoutFragmentation());
            case "ace-exact" -> new AcePolicy(c, () -> gross().withFragmentation(FragmentationScorer.TP_FIRST));
            case "ace-mix-requests" -> new AcePolicy(c, () -> gross().withMix(DemandMix.inferenceDefaultByRequest()));
            case "ace-gross" -> new AcePolicy(c, Policies::gross);
            case "ace-shares-before" -> new AcePolicy(c, Policies::sharesBefore);
            case "ace-shares-unseen" -> new AcePolicy(c, () -> PackerConfig.defaults().withMix(DemandMix.inferenceDefault().netOfFootprint()).withTargetShapes(SHAPES_BEFORE));
            case "ace-share-single" -> new AcePolicy(c, () -> PackerConfig.defaults().with(SINGLE_GPU_COST).withTargetShapes(SHAPES_BEFORE));
            // the fragmentation target capped at 64 shapes, the engine before the cap of 160 (issue 20, the gpuspec lists)
            case "ace-shapes-64" -> new AcePolicy(c, () -> PackerConfig.defaults().withTargetShapes(SHAPES_BEFORE));
            // CPU-only pods by the engine's learned target, not FGD's score of the run's target (the rule before issue 20's CPU lists)
            case "ace-cpu-engine" -> ace(c).withCpuOnly(AcePolicy.CpuOnlyRule.ENGINE);
            // the fragmentation measure blind to memory, as FGD's (the engine before issue 20's memory finding)
            case "ace-memory-blind" -> new AcePolicy(c, () -> PackerConfig.defaults().countingMemory(false));
            case "ace-net-all" -> new AcePolicy(c, () -> PackerConfig.defaults().withMix(DemandMix.inferenceDefault().netForCliquesToo().countingShares()));
            case "ace-frag-equal" -> new AcePolicy(c, () -> gross().withFragmentation(FragmentationScorer.TP_PER_GPU));
            // the batch-pool rule (issue 20): the simulator's order before it (general, inference, slicing; no reserve,
            // no yield), the webhook's rule before it (inference first while the reserve holds, then general), and the
            // alternatives measured beside the default (slicing, general, inference; reserve 1; yield)
            case "ace-batch-general-first" -> ace(c).withBatch(new BatchRule(List.of(Pool.GENERAL, Pool.INFERENCE, Pool.SLICING), 0, false));
            case "ace-batch-inference-first" -> ace(c).withBatch(new BatchRule(List.of(Pool.INFERENCE, Pool.GENERAL), 1, false));
            case "ace-batch-general-slicing" -> ace(c).withBatch(BatchRule.defaults().inOrder(List.of(Pool.GENERAL, Pool.SLICING, Pool.INFERENCE)));
            case "ace-batch-no-yield" -> ace(c).withBatch(BatchRule.defaults().yielding(false));
            case "ace-batch-no-inference" -> ace(c).withBatch(BatchRule.defaults().inOrder(List.of(Pool.SLICING, Pool.GENERAL)));
            // a fleet whose slicing pool offers no whole GPUs (MIG only): general, then inference
            case "ace-batch-no-slicing" -> ace(c).withBatch(BatchRule.defaults().inOrder(List.of(Pool.GENERAL, Pool.INFERENCE)));
            default -> throw new IllegalArgumentException("unknown policy '" + name + "'; known: " + String.join(", ", Policy.NAMES));
        };
    }

    /**
     * The webhook's engine with TP damage counted gross, not net of the request's own footprint
     * (the engine before that rule): the {@code ace-gross} row, and the base of the older variants
     * ({@code ace-neutral}, {@code ace-exact}, {@code ace-mix-requests}, {@code ace-frag-equal}), so
     * each still differs from {@code ace-gross} in one thing and their published rows stay true; like the
     * engine before, these older rows score fragmentation blind to memory.
     */
    private static AcePolicy ace(SimContext c) { return new AcePolicy(c, PackerConfig::defaults); }

    static PackerConfig gross() {
        return PackerConfig.defaults().withMix(DemandMix.inferenceDefault()).with(SINGLE_GPU_COST).withTargetShapes(SHAPES_BEFORE).countingMemory(false);
    }

    /**
     * The webhook's engine before the share rules of issue 20's share lists (the {@code ace} row of
     * the run before, commit c5a9661): the demand mix does not count GPU shares, and a share that
     * takes a wholly free GPU also pays its single-GPU capacity on fragmentation's scale. The
     * {@code ace-shares-before} row; {@code ace-shares-unseen} and {@code ace-share-single} each
     * bring back one of the two.
     */
    static PackerConfig sharesBefore() {
        return gross().withMix(DemandMix.inferenceDefault().netOfFootprint());
    }

    private static final FragmentationScorer.ShareOnWholeGpu SINGLE_GPU_COST = FragmentationScorer.ShareOnWholeGpu.SINGLE_GPU_COST;
    /** The older protocol A variants keep the 64-shape target they were published with, so their rows stay true. */
    private static final int SHAPES_BEFORE = FragmentationScorer.TARGET_SHAPES_BEFORE;
}
