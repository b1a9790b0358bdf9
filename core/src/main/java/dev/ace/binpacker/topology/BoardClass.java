package dev.ace.binpacker.topology;

import java.util.List;

/**
 * The shape of a board's NVLink graph, as seen in real hardware (fixtures in tests/fixtures/topology).
 * Derived from the link matrix alone, so a parsed board and a catalog board classify alike.
 */
public enum BoardClass {
    /** Every pair NVLinked, more than 4 GPUs: only an NVSwitch baseboard does that (HGX/DGX 8-GPU, DGX-2). */
    NVSWITCH_ALL_TO_ALL("NVSwitch all-to-all"),
    /** Every pair of 3-4 GPUs NVLinked: a direct mesh (HGX A100 4-GPU) or an NVSwitch tray (GB200). */
    NVLINK_ALL_TO_ALL("NVLink all-to-all (direct mesh or NVSwitch)"),
    /** DGX-1 style: two fully linked quads {0-3},{4-7} plus the cross links i to i+4. */
    HYBRID_CUBE_MESH("hybrid cube-mesh"),
    /** Only NVLink pairs (bridges on PCIe cards, NV2 desktop pairs, POWER9 pairs). */
    BRIDGED_PAIRS("bridged pairs"),
    /** NVLink that fits none of the above (islands, missing links): check the matrix. */
    PARTIAL_NVLINK("partial NVLink"),
    /** No NVLink at all. */
    PCIE_ONLY("PCIe only");

    private final String label;

    BoardClass(String label) { this.label = label; }

    /** Human name, e.g. {@code NVSwitch all-to-all}. */
    public String label() { return label; }

    public static BoardClass of(GpuBoard board) {
        List<Long> domains = board.nvlinkDomains();
        int n = board.gpuCount();
        if (domains.isEmpty()) return PCIE_ONLY;
        if (domains.stream().allMatch(d -> Long.bitCount(d) == 2)) return BRIDGED_PAIRS;
        if (board.isAllToAll()) return n > 4 ? NVSWITCH_ALL_TO_ALL : NVLINK_ALL_TO_ALL;
        if (isHybridCubeMesh(board)) return HYBRID_CUBE_MESH;
        return PARTIAL_NVLINK;
    }

    private static boolean isHybridCubeMesh(GpuBoard b) {
        if (b.gpuCount() != 8 || b.largestClique() != 4) return false;
        if (!b.isClique(0x0FL) || !b.isClique(0xF0L)) return false;
        for (int i = 0; i < 4; i++) {
            if ((b.nvlinkPeers(i) & 0xF0L) != 1L << (i + 4)) return false;
        }
        return true;
    }
}
