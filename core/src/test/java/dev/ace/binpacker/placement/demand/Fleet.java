package dev.ace.binpacker.placement.demand;

import dev.ace.binpacker.topology.BoardCatalog;
import dev.ace.binpacker.topology.GpuBoard;
import java.util.List;
import java.util.Map;

/** Boards and node types for the demand tests: the board catalog's own boards, prices from configuration. */
final class Fleet {
    private Fleet() {}

    static final String CLIQUE = BoardCatalog.CLIQUE_LABEL;
    static final GpuBoard HGX = board("NVIDIA-H100-80GB-HBM3", 8);
    static final GpuBoard TRAY = board("NVIDIA-GB200", 4);
    static final GpuBoard PCIE_PAIRS = board("NVIDIA-A100-PCIE-40GB", 4);

    static final NodeType HGX_TYPE = NodeType.node("inference", "p5.48xlarge", HGX, 98.32);
    static final NodeType TRAY_TYPE = new NodeType("inference", "gb200-tray", TRAY, 42.0, CLIQUE, 18);
    static final NodeType PAIRS_TYPE = NodeType.node("inference", "a100-pcie-x4", PCIE_PAIRS, 14.7);
    static final List<NodeType> TYPES = List.of(HGX_TYPE, TRAY_TYPE, PAIRS_TYPE);

    static GpuBoard board(String product, int count) {
        return BoardCatalog.infer(Map.of(BoardCatalog.PRODUCT_LABEL, product, BoardCatalog.COUNT_LABEL, Integer.toString(count)))
                .board().orElseThrow(() -> new AssertionError("catalog has no board for " + product));
    }

    static Supply hgx(String name, long free) { return new Supply(name, "inference", HGX_TYPE.name(), HGX, free, 0, null); }

    static Supply tray(String name, String domain, long free) {
        return new Supply(name, "inference", TRAY_TYPE.name(), TRAY, free, 0, domain);
    }

    static long gpus(int... idx) { return GpuBoard.mask(idx); }
}
