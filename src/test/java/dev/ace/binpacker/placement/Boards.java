package dev.ace.binpacker.placement;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.Link;
import dev.ace.binpacker.topology.LinkKind;

/** Hand-built boards shaped like the real fixtures, shared instances as the catalog hands them out. */
final class Boards {
    private Boards() {}

    /** HGX H100: NV18 between every pair, GPUs 0-3 on NUMA 0 and 4-7 on NUMA 1. */
    static final GpuBoard HGX_H100 = nvswitch(8, 18);

    /** A100 PCIe x4 with NVLink bridges on (0,1) and (2,3), pairs on different NUMA nodes. */
    static final GpuBoard A100_PCIE_PAIRS = bridgedPairs(4);

    /** L40S x4: PCIe only; 0-1 and 2-3 under one switch each, halves across sockets. */
    static final GpuBoard L40S = pcieOnly(4);

    /** DGX-1 V100 hybrid cube-mesh as in the dgx1-v100-8gpu fixture. */
    static final GpuBoard DGX1 = dgx1();

    static GpuBoard nvswitch(int n, int bonds) {
        Link[][] l = new Link[n][n];
        int[] numa = new int[n];
        for (int i = 0; i < n; i++) {
            numa[i] = i < n / 2 ? 0 : 1;
            for (int j = 0; j < n; j++) l[i][j] = i == j ? Link.SELF : Link.nvlink(bonds);
        }
        return new GpuBoard("NVSwitch x" + n, l, numa, null);
    }

    static GpuBoard bridgedPairs(int n) {
        Link[][] l = new Link[n][n];
        int[] numa = new int[n];
        for (int i = 0; i < n; i++) {
            numa[i] = i < n / 2 ? 0 : 1;
            for (int j = 0; j < n; j++) {
                if (i == j) l[i][j] = Link.SELF;
                else if (i / 2 == j / 2) l[i][j] = Link.nvlink(12);
                else l[i][j] = Link.of((i < n / 2) == (j < n / 2) ? LinkKind.NODE : LinkKind.SYS);
            }
        }
        return new GpuBoard("bridged pairs x" + n, l, numa, null);
    }

    static GpuBoard pcieOnly(int n) {
        Link[][] l = new Link[n][n];
        int[] numa = new int[n];
        for (int i = 0; i < n; i++) {
            numa[i] = i < n / 2 ? 0 : 1;
            for (int j = 0; j < n; j++) {
                if (i == j) l[i][j] = Link.SELF;
                else if (i / 2 == j / 2) l[i][j] = Link.of(LinkKind.PIX);
                else l[i][j] = Link.of((i < n / 2) == (j < n / 2) ? LinkKind.NODE : LinkKind.SYS);
            }
        }
        return new GpuBoard("PCIe x" + n, l, numa, null);
    }

    private static GpuBoard dgx1() {
        String[] rows = {
            "X NV1 NV1 NV2 NV2 SYS SYS SYS",
            "NV1 X NV2 NV1 SYS NV2 SYS SYS",
            "NV1 NV2 X NV2 SYS SYS NV1 SYS",
            "NV2 NV1 NV2 X SYS SYS SYS NV1",
            "NV2 SYS SYS SYS X NV1 NV1 NV2",
            "SYS NV2 SYS SYS NV1 X NV2 NV1",
            "SYS SYS NV1 SYS NV1 NV2 X NV2",
            "SYS SYS SYS NV1 NV2 NV1 NV2 X",
        };
        Link[][] l = new Link[8][8];
        for (int i = 0; i < 8; i++) {
            String[] t = rows[i].split(" ");
            for (int j = 0; j < 8; j++) {
                l[i][j] = t[j].equals("X") ? Link.SELF
                        : t[j].startsWith("NV") ? Link.nvlink(Integer.parseInt(t[j].substring(2)))
                        : Link.of(LinkKind.valueOf(t[j]));
            }
        }
        return new GpuBoard("DGX-1 V100", l, null, null);
    }

    static NodeInfo node(String name, Pool pool, GpuBoard board) {
        return new NodeInfo(name, pool, java.util.Map.of("kubernetes.io/hostname", name), java.util.List.of(),
                board, "test", board.name(), 0);
    }
}
