package dev.ace.binpacker.sim;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.Link;
import dev.ace.binpacker.topology.LinkKind;
import java.util.HashMap;
import java.util.Map;

/**
 * The board assumed for each openb GPU model (the trace records no topology). One shared
 * {@link GpuBoard} per (model, GPU count): the packer caches its tables by board identity.
 *
 * <ul>
 *   <li>V100 (M16/M32) with 8 GPUs: DGX-1 hybrid cube-mesh, the links of the {@code dgx1-v100-8gpu}
 *       fixture (quads 0-3 and 4-7 all-to-all NVLink, cross links 0-4, 1-5, 2-6, 3-7, the rest SYS);
 *       Alibaba's 8-GPU V100 servers are SXM2 machines of that design.</li>
 *   <li>V100 with 4 GPUs: one DGX-1 quad (SXM2 4-GPU boards are all-to-all NVLink).</li>
 *   <li>Everything else (T4, P100, A10, G1/G2/G3, 1-2 GPU V100): PCIe only. Pairs share a PCIe
 *       switch (PIX), halves share a NUMA node (NODE), the halves meet over SYS. T4 and A10 have no
 *       NVLink at all; P100 here comes in 1-2 GPU hosts, which are PCIe cards; G1-G3 are undisclosed,
 *       so nothing is assumed beyond PCIe.</li>
 * </ul>
 */
public final class OpenbBoards {
    private static final int[][] DGX1_BONDS = {
        {0, 1, 1, 2, 2, 0, 0, 0},
        {1, 0, 2, 1, 0, 2, 0, 0},
        {1, 2, 0, 2, 0, 0, 1, 0},
        {2, 1, 2, 0, 0, 0, 0, 1},
        {2, 0, 0, 0, 0, 1, 1, 2},
        {0, 2, 0, 0, 1, 0, 2, 1},
        {0, 0, 1, 0, 1, 2, 0, 2},
        {0, 0, 0, 1, 2, 1, 2, 0},
    };

    private final Map<String, GpuBoard> boards = new HashMap<>();

    public GpuBoard board(String model, int gpus) {
        return boards.computeIfAbsent(model + "/" + gpus, k -> build(model, gpus));
    }

    /** What the docs say about a model's board, for the report. */
    public static String assumption(String model, int gpus) {
        if (model.startsWith("HGX")) return "NVSwitch, all-to-all NVLink";
        if (model.endsWith("-bridged")) return "NVLink-bridged pairs";
        if (isV100(model) && gpus == 8) return "DGX-1 hybrid cube-mesh (NVLink)";
        if (isV100(model) && gpus == 4) return "NVLink quad, all-to-all";
        return "PCIe only";
    }

    private static boolean isV100(String model) { return model.startsWith("V100"); }

    private static GpuBoard build(String model, int gpus) {
        if (model.startsWith("HGX")) return nvswitch(model, gpus);
        if (model.endsWith("-bridged")) return bridgedPairs(model, gpus);
        if (isV100(model) && gpus == 8) return dgx1(model);
        if (isV100(model) && gpus == 4) return quad(model);
        return pcie(model, gpus);
    }

    /** Protocol B's inference nodes: every GPU pair NVLinked through NVSwitch (HGX H100/H200, NV18). */
    static GpuBoard nvswitch(String model, int gpus) {
        Link[][] l = new Link[gpus][gpus];
        for (int i = 0; i < gpus; i++) for (int j = 0; j < gpus; j++) l[i][j] = i == j ? Link.SELF : Link.nvlink(18);
        return new GpuBoard(model + " " + gpus + "-GPU NVSwitch", l, null, null);
    }

    /** Protocol B's bridged nodes (A100 PCIe / H100 NVL): NVLink bridges join GPUs 0-1, 2-3, ...; the rest is PCIe. */
    static GpuBoard bridgedPairs(String model, int gpus) {
        Link[][] l = new Link[gpus][gpus];
        for (int i = 0; i < gpus; i++) {
            for (int j = 0; j < gpus; j++) {
                l[i][j] = i == j ? Link.SELF : i / 2 == j / 2 ? Link.nvlink(12) : Link.of(i / 4 == j / 4 ? LinkKind.NODE : LinkKind.SYS);
            }
        }
        return new GpuBoard(model + " " + gpus + "-GPU NVLink-bridged pairs", l, null, null);
    }

    static GpuBoard dgx1(String model) {
        Link[][] l = new Link[8][8];
        for (int i = 0; i < 8; i++) {
            for (int j = 0; j < 8; j++) {
                l[i][j] = i == j ? Link.SELF : DGX1_BONDS[i][j] > 0 ? Link.nvlink(DGX1_BONDS[i][j]) : Link.of(LinkKind.SYS);
            }
        }
        return new GpuBoard(model + " 8-GPU DGX-1 cube-mesh (assumed)", l, null, null);
    }

    private static GpuBoard quad(String model) {
        Link[][] l = new Link[4][4];
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 4; j++) l[i][j] = i == j ? Link.SELF : Link.nvlink(DGX1_BONDS[i][j]);
        }
        return new GpuBoard(model + " 4-GPU NVLink quad (assumed)", l, null, null);
    }

    private static GpuBoard pcie(String model, int gpus) {
        Link[][] l = new Link[gpus][gpus];
        int half = Math.max(1, gpus / 2);
        int[] numa = new int[gpus];
        for (int i = 0; i < gpus; i++) {
            numa[i] = gpus >= 4 ? i / half : 0;
            for (int j = 0; j < gpus; j++) {
                LinkKind k;
                if (i == j) k = LinkKind.SELF;
                else if (gpus == 2) k = LinkKind.PHB;
                else if (i / 2 == j / 2) k = LinkKind.PIX;
                else if (i / half == j / half) k = LinkKind.NODE;
                else k = LinkKind.SYS;
                l[i][j] = k == LinkKind.SELF ? Link.SELF : Link.of(k);
            }
        }
        return new GpuBoard(model + " " + gpus + "-GPU PCIe (assumed)", l, numa, null);
    }
}
