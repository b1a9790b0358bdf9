package dev.ace.binpacker.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The catalog's literal boards must agree with what real machines print. */
class CatalogMatchesFixturesTest {

    private static GpuBoard catalog(String product, int count) {
        return BoardCatalog.infer(Map.of(BoardCatalog.PRODUCT_LABEL, product, BoardCatalog.COUNT_LABEL, Integer.toString(count)))
                .board().orElseThrow();
    }

    private static void assertSameNvlinkGraph(GpuBoard expected, GpuBoard actual) {
        assertEquals(expected.gpuCount(), actual.gpuCount());
        assertEquals(expected.nvlinkDomains(), actual.nvlinkDomains());
        assertEquals(expected.largestClique(), actual.largestClique());
        for (int size = 1; size <= expected.gpuCount(); size++) {
            assertArrayEquals(expected.cliques(size), actual.cliques(size), "cliques of " + size);
            assertArrayEquals(expected.alignedBlocks(size), actual.alignedBlocks(size), "aligned blocks of " + size);
        }
        assertEquals(BoardClass.of(expected), BoardClass.of(actual));
    }

    @Test
    void hgxH100CatalogBoardHasTheDomainsAndCliquesOfTheParsedH100() {
        GpuBoard parsed = TopologyFixtures.parse("h100-sxm-8gpu-stas00.txt");
        GpuBoard cat = catalog("NVIDIA-H100-80GB-HBM3", 8);
        assertSameNvlinkGraph(parsed, cat);
        for (int g = 0; g < 8; g++) assertEquals(parsed.numaNode(g), cat.numaNode(g), "NUMA of GPU" + g);
    }

    @Test
    void dgx1CatalogBoardEqualsTheParsedDgx1LinkForLink() {
        GpuBoard parsed = TopologyFixtures.parse("dgx1-v100-8gpu.txt");
        GpuBoard cat = catalog("Tesla-V100-SXM2-32GB", 8);
        assertSameNvlinkGraph(parsed, cat);
        for (int i = 0; i < 8; i++) {
            for (int j = 0; j < 8; j++) {
                assertEquals(parsed.link(i, j).isNvlink(), cat.link(i, j).isNvlink(), "GPU" + i + "-GPU" + j);
                if (parsed.link(i, j).isNvlink()) assertEquals(parsed.link(i, j), cat.link(i, j), "bonds GPU" + i + "-GPU" + j);
            }
        }
    }

    @Test
    void otherCatalogShapesAgreeWithTheirFixtures() {
        assertSameNvlinkGraph(TopologyFixtures.parse("hgx-h200-8gpu.txt"), catalog("NVIDIA-H200", 8));
        assertSameNvlinkGraph(TopologyFixtures.parse("hgx-a100-8gpu-nv12-4nic.txt"), catalog("NVIDIA-A100-SXM4-80GB", 8));
        assertSameNvlinkGraph(TopologyFixtures.parse("hgx-a100-4gpu-nv4-perlmutter.txt"), catalog("NVIDIA-A100-SXM4-40GB", 4));
        assertSameNvlinkGraph(TopologyFixtures.parse("a100-pcie-4gpu-nvlink-bridge-pairs.txt"), catalog("NVIDIA-A100-80GB-PCIe", 4));
        assertSameNvlinkGraph(TopologyFixtures.parse("gb200-4gpu-nv18-author-condensed.txt"), catalog("NVIDIA-GB200", 4));
        assertSameNvlinkGraph(TopologyFixtures.parse("l40s-4gpu-pcie-node-sys.txt"), catalog("NVIDIA-L40S", 4));
        assertSameNvlinkGraph(TopologyFixtures.parse("rtx4090-8gpu-pcie-sys.txt"), catalog("NVIDIA-GeForce-RTX-4090", 8));
    }
}
