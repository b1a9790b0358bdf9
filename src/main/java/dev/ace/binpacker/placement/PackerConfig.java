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
     * This configuration with fragmentation scoring on: a fresh scorer that learns from the requests
     * seen, every shape counted (full coverage, which keeps rare 8-GPU shapes in the target; on the
     * openb traces it allocates 0.1-0.4 point more than FGD's 95 % cut, see docs/benchmarks.md).
     */
    public PackerConfig withFragmentation() { return withFragmentation(FragmentationScorer.TP_FIRST); }

    /** As {@link #withFragmentation()}, TP damage weighed {@code tpWeight} per unit against a milli-GPU of fragmentation. */
    public PackerConfig withFragmentation(double tpWeight) {
        return new PackerConfig(mix, poolPreferenceStrict, new FragmentationScorer(1.0, false, tpWeight));
    }

    /** This configuration without fragmentation scoring: TP capacity alone (the engine before issue 10). */
    public PackerConfig withoutFragmentation() { return new PackerConfig(mix, poolPreferenceStrict, null); }

    /** This configuration with another demand mix (a neutral prior, say). */
    public PackerConfig withMix(DemandMix m) { return new PackerConfig(m, poolPreferenceStrict, fragmentation); }

    /** What the webhook runs ({@code cluster.Fleet}) and the simulator's {@code ace} row measures. */
    public static PackerConfig defaults() { return new PackerConfig(DemandMix.inferenceDefault(), true).withFragmentation(); }

    public static PackerConfig frozen(double[] prior) { return new PackerConfig(DemandMix.frozen(prior), true); }
}
