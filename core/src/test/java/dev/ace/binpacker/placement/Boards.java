package dev.ace.binpacker.placement;

import dev.ace.binpacker.topology.BoardCatalog;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.Link;
import dev.ace.binpacker.topology.LinkKind;
import java.util.List;
import java.util.Map;

/** Boards for placement tests: the catalog's shared instances where it has the board, hand-built otherwise. */
final class Boards {
    private Boards() {}

    /** HGX H100: NV18 between every pair, GPUs 0-3 on NUMA 0 and 4-7 on NUMA 1. */
    static final GpuBoard HGX_H100 = catalog("NVIDIA-H100-80GB-HBM3", 8);

    /** A100 PCIe x4 with NVLink bridges on (0,1) and (2,3). */
    static final GpuBoard A100_PCIE_PAIRS = catalog("NVIDIA-A100-PCIE-40GB", 4);

    /** DGX-1 V100 hybrid cube-mesh, link for link as the dgx1-v100-8gpu fixture. */
    static final GpuBoard DGX1 = catalog("Tesla-V100-SXM2-32GB", 8);

    /**
     * L40S x4 shaped like the l40s fixture: PCIe only, 0-1 and 2-3 under one switch each, the halves
     * on different sockets (the catalog cannot know the PCIe tree, so it is built here).
     */
    static final GpuBoard L40S = build("PCIe x4", 4, (i, j) ->
            Link.of(i / 2 == j / 2 ? LinkKind.PIX : (i < 2) == (j < 2) ? LinkKind.NODE : LinkKind.SYS));

    private static GpuBoard catalog(String product, int count) {
        return BoardCatalog.infer(Map.of("nvidia.com/gpu.product", product, "nvidia.com/gpu.count", Integer.toString(count)))
                .board().orElseThrow(() -> new AssertionError("catalog has no board for " + product));
    }

    /** Every pair NVLinked (NVSwitch or full mesh), NUMA halves. */
    static GpuBoard nvswitch(int n, int bonds) {
        return build("NVSwitch x" + n, n, (i, j) -> Link.nvlink(bonds));
    }

    /** PCIe only: pairs under one switch, halves on one socket each (no NVLink, no clique beyond a GPU). */
    static GpuBoard pcie(int n) {
        return build("PCIe x" + n, n, (i, j) -> Link.of(i / 2 == j / 2 ? LinkKind.PIX : (i < n / 2) == (j < n / 2) ? LinkKind.NODE : LinkKind.SYS));
    }

    interface LinkFn { Link between(int i, int j); }

    private static GpuBoard build(String name, int n, LinkFn links) {
        Link[][] l = new Link[n][n];
        int[] numa = new int[n];
        for (int i = 0; i < n; i++) {
            numa[i] = i < n / 2 ? 0 : 1;
            for (int j = 0; j < n; j++) l[i][j] = i == j ? Link.SELF : links.between(i, j);
        }
        return new GpuBoard(name, l, numa, null);
    }

    static NodeInfo node(String name, Pool pool, GpuBoard board) {
        return new NodeInfo(name, pool, Map.of("kubernetes.io/hostname", name), List.of(), board, "test", board.name(), 0);
    }
}
