package dev.ace.binpacker.topology;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the node labels say about a node's GPUs.
 *
 * @param board       the catalog board, empty when the product or GPU count is not one ACE knows
 * @param product     {@code nvidia.com/gpu.product} without the {@code -MIG-<profile>} suffix ("" if absent)
 * @param gpuCount    physical GPUs (with MIG {@code single}, derived from the MIG device count)
 * @param migCapable  the GPU model supports MIG
 * @param migProfiles the model's MIG profiles (empty when not MIG-capable or not tabulated)
 * @param source      where the board came from, e.g. {@code catalog:HGX H100 8-GPU NVSwitch}, or {@code none}
 * @param reason      human explanation, always set; says what is missing when the board is empty
 */
public record BoardInference(Optional<GpuBoard> board, String product, int gpuCount,
                             boolean migCapable, List<MigProfile> migProfiles, String source, String reason) {
    public BoardInference {
        Objects.requireNonNull(board, "board");
        Objects.requireNonNull(product, "product");
        migProfiles = List.copyOf(migProfiles);
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(reason, "reason");
    }
}
