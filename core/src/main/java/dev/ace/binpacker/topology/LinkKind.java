package dev.ace.binpacker.topology;

/**
 * How two devices of a board are connected, as {@code nvidia-smi topo -m} prints it.
 * Declared from closest to farthest, so {@link #ordinal()} is a distance rank.
 */
public enum LinkKind {
    /** The device itself ({@code X}). */
    SELF,
    /** A bonded set of NVLinks ({@code NV#}); the bond count lives in {@link Link#bonds()}. */
    NVLINK,
    /** At most one PCIe bridge/switch. */
    PIX,
    /** Several PCIe bridges, not through the host bridge. */
    PXB,
    /** Through a PCIe host bridge (the CPU). */
    PHB,
    /** Between PCIe host bridges inside one NUMA node. */
    NODE,
    /** Across the SMP interconnect between NUMA nodes (QPI/UPI). */
    SYS;

    /** Parses a PCIe-level token ({@code PIX}, {@code PXB}, {@code PHB}, {@code NODE}, {@code SYS}, {@code X}); null if it is none of them. */
    public static LinkKind ofToken(String token) {
        return switch (token) {
            case "X" -> SELF;
            case "PIX" -> PIX;
            case "PXB" -> PXB;
            case "PHB" -> PHB;
            case "NODE" -> NODE;
            case "SYS", "SOC" -> SYS; // SOC is the pre-2017 driver's name for SYS
            default -> null;
        };
    }
}
