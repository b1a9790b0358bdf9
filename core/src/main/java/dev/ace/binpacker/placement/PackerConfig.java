package dev.ace.binpacker.placement;

/**
 * Tunables of the packer.
 *
 * @param mix               demand mix the score protects (learned online unless frozen)
 * @param poolPreferenceStrict true: a pool later in a request's list is used only when no earlier pool fits
 * @param fragmentation        when set, every decision also weighs FGD-style fragmentation learned
 *                             from the requests seen ({@link FragmentationScorer}); null = off
 */
public record PackerConfig(DemandMix mix, boolean poolPreferenceStrict, FragmentationScorer fragmentation) {
    public PackerConfig(DemandMix mix, boolean poolPreferenceStrict) { this(mix, poolPreferenceStrict, null); }

    /**
     * This configuration with fragmentation scoring on, as the webhook runs it: a fresh scorer that
     * learns from the requests seen, every shape counted (full coverage, which keeps rare 8-GPU
     * shapes in the target), TP damage first, and below it FGD's coarse integer score with ties to
     * the lowest node index ({@link FragmentationScorer#cost}; docs/benchmarks.md); a GPU share
     * pays for a wholly free GPU only the NVLink capacity it breaks and the fragmentation it adds
     * ({@link FragmentationScorer.ShareOnWholeGpu#FRAGMENTATION}); up to
     * {@link FragmentationScorer#TARGET_SHAPES} shapes in the target; memory counted as CPU is
     * ({@link FragmentationScorer#countingMemory}).
     */
    public PackerConfig withFragmentation() {
        return new PackerConfig(mix, poolPreferenceStrict, new FragmentationScorer(1.0, false, FragmentationScorer.TP_FIRST, true,
                FragmentationScorer.ShareOnWholeGpu.FRAGMENTATION, FragmentationScorer.TARGET_SHAPES).countingMemory(true));
    }

    /** This configuration with a scorer that counts memory or not ({@link FragmentationScorer#countingMemory}; a fresh scorer; no-op without fragmentation). */
    public PackerConfig countingMemory(boolean aware) {
        return fragmentation == null ? this : new PackerConfig(mix, poolPreferenceStrict, fragmentation.countingMemory(aware));
    }

    /** This configuration with at most {@code n} shapes in the fragmentation target (a fresh scorer; no-op without fragmentation). */
    public PackerConfig withTargetShapes(int n) {
        return fragmentation == null ? this : new PackerConfig(mix, poolPreferenceStrict, fragmentation.withTargetShapes(n));
    }

    /** This configuration with another rule for what a GPU share pays for a wholly free GPU (a fresh scorer; no-op without fragmentation). */
    public PackerConfig with(FragmentationScorer.ShareOnWholeGpu rule) {
        return fragmentation == null ? this : new PackerConfig(mix, poolPreferenceStrict, fragmentation.with(rule));
    }

    /**
     * Fragmentation scored by the exact milli-GPU a choice adds, ties to the fuller node, TP damage
     * weighed {@code tpWeight} per unit against a milli-GPU: the engine before issue 20 at
     * {@link FragmentationScorer#TP_FIRST}, the one-scale weighting at {@link FragmentationScorer#TP_PER_GPU}.
     */
    public PackerConfig withFragmentation(double tpWeight) {
        return new PackerConfig(mix, poolPreferenceStrict, new FragmentationScorer(1.0, false, tpWeight, false));
    }

    /** This configuration without fragmentation scoring: TP capacity alone (the engine before issue 10). */
    public PackerConfig withoutFragmentation() { return new PackerConfig(mix, poolPreferenceStrict, null); }

    /** This configuration with another demand mix (a neutral prior, say); the footprint rule is the mix's ({@link DemandMix#netOfFootprint}). */
    public PackerConfig withMix(DemandMix m) { return new PackerConfig(m, poolPreferenceStrict, fragmentation); }

    /**
     * What the webhook runs ({@code cluster.Fleet}) and the simulator's {@code ace} row measures:
     * the inference prior, learned by GPU (GPU shares counted as their fraction of a single GPU,
     * {@link DemandMix#countingShares}), a choice's TP damage counted net of its own footprint
     * ({@link DemandMix#beyondFootprint}), fragmentation below it ({@link #withFragmentation()}).
     */
    public static PackerConfig defaults() {
        return new PackerConfig(DemandMix.inferenceDefault().netOfFootprint().countingShares(), true).withFragmentation();
    }

    public static PackerConfig frozen(double[] prior) { return new PackerConfig(DemandMix.frozen(prior), true); }
}
