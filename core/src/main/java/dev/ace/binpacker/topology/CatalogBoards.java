package dev.ace.binpacker.topology;

/**
 * Link matrices of the board shapes the catalog knows. Only NVLink-ness and bond counts are
 * facts here; where a shape has no NVLink between two GPUs the catalog says {@code SYS}, the most
 * pessimistic PCIe path, because labels do not tell which PCIe switch or socket a GPU sits on.
 */
final class CatalogBoards {
    private CatalogBoards() {}

    /** Every pair NVLinked with {@code bonds} links: NVSwitch baseboards and 4-GPU direct meshes. */
    static GpuBoard allToAll(String name, int n, int bonds, int[] numa) {
        Link[][] links = blank(n);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (i != j) links[i][j] = Link.nvlink(bonds);
            }
        }
        return new GpuBoard(name, links, numa, null);
    }

    /** NVLink bridges join (0,1), (2,3), ...; an odd last GPU has no partner. */
    static GpuBoard bridgedPairs(String name, int n, int bonds) {
        Link[][] links = blank(n);
        for (int i = 0; i + 1 < n; i += 2) {
            links[i][i + 1] = Link.nvlink(bonds);
            links[i + 1][i] = Link.nvlink(bonds);
        }
        return new GpuBoard(name, links, null, null);
    }

    /** No NVLink at all. */
    static GpuBoard pcieOnly(String name, int n) {
        return new GpuBoard(name, blank(n), null, null);
    }

    /**
     * DGX-1 (V100 SXM2) hybrid cube-mesh, cell for cell as {@code nvidia-smi topo -m} prints it on a
     * DGX-1 (fixture {@code dgx1-v100-8gpu.txt}, from pytorch/pytorch benchmarks/distributed/ddp).
     */
    static GpuBoard dgx1(String name) {
        return new GpuBoard(name, LinkTokens.matrix(
                " X  NV1 NV1 NV2 NV2 SYS SYS SYS",
                "NV1  X  NV2 NV1 SYS NV2 SYS SYS",
                "NV1 NV2  X  NV2 SYS SYS NV1 SYS",
                "NV2 NV1 NV2  X  SYS SYS SYS NV1",
                "NV2 SYS SYS SYS  X  NV1 NV1 NV2",
                "SYS NV2 SYS SYS NV1  X  NV2 NV1",
                "SYS SYS NV1 SYS NV1 NV2  X  NV2",
                "SYS SYS SYS NV1 NV2 NV1 NV2  X "), null, null);
    }

    /** NUMA node per GPU when the first half of the GPUs sits on socket 0 and the second on socket 1. */
    static int[] halves(int n) {
        int[] numa = new int[n];
        for (int i = 0; i < n; i++) numa[i] = i < n / 2 ? 0 : 1;
        return numa;
    }

    private static Link[][] blank(int n) {
        Link sys = Link.of(LinkKind.SYS);
        Link[][] links = new Link[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) links[i][j] = i == j ? Link.SELF : sys;
        }
        return links;
    }
}
