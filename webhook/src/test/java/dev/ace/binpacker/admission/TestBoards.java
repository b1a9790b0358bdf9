package dev.ace.binpacker.admission;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.Link;
import dev.ace.binpacker.topology.LinkKind;

/** Hand-built boards: what the HGX, PCIe and bridged-pair fixtures describe, without the parser. */
public final class TestBoards {
    private TestBoards() {}

    /** HGX 8-GPU NVSwitch: every pair NV18, GPUs 0-3 on NUMA 0, 4-7 on NUMA 1. */
    public static GpuBoard hgx8() {
        Link[][] l = new Link[8][8];
        int[] numa = new int[8];
        for (int i = 0; i < 8; i++) {
            numa[i] = i < 4 ? 0 : 1;
            for (int j = 0; j < 8; j++) l[i][j] = i == j ? Link.SELF : Link.nvlink(18);
        }
        return new GpuBoard("HGX H100 8-GPU (test)", l, numa, null);
    }

    /** PCIe only, every pair NODE within a NUMA half, SYS across. */
    public static GpuBoard pcie(int n) {
        Link[][] l = new Link[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                l[i][j] = i == j ? Link.SELF : Link.of((i < n / 2) == (j < n / 2) ? LinkKind.NODE : LinkKind.SYS);
            }
        }
        return new GpuBoard("PCIe " + n + "-GPU (test)", l, null, null);
    }
}
