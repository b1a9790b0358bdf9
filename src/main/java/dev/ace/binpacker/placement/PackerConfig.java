package dev.ace.binpacker.placement;

/**
 * Tunables of the packer.
 *
 * @param mix               demand mix the score protects (learned online unless frozen)
 * @param poolPreferenceStrict true: a pool later in a request's list is used only when no earlier pool fits
 */
public record PackerConfig(DemandMix mix, boolean poolPreferenceStrict) {
    public static PackerConfig defaults() { return new PackerConfig(DemandMix.inferenceDefault(), true); }

    public static PackerConfig frozen(double[] prior) { return new PackerConfig(DemandMix.frozen(prior), true); }
}
