package dev.ace.binpacker.topology;

import static dev.ace.binpacker.topology.GpuBoard.mask;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * One test per published fixture. Expected values were read off the fixture text by hand
 * (GPU rows, NV# cells, NUMA Affinity column), not produced by running the parser.
 */
class TopologyParserFixtureTest {

    private static int[] numa(GpuBoard b) {
        return IntStream.range(0, b.gpuCount()).map(b::numaNode).toArray();
    }

    private static void assertRefused(String file, int line, String says) {
        TopologyParseException e = assertThrows(TopologyParseException.class, () -> TopologyFixtures.parse(file));
        assertEquals(line, e.line(), e.getMessage());
        assertTrue(e.getMessage().contains(says), e.getMessage());
    }

    @Test
    void twoGpuDesktopWithNv2IsOneBridgedPair() {
        GpuBoard b = TopologyFixtures.parse("2gpu-nvlink-nv2-stas00.txt");
        assertEquals(2, b.gpuCount());
        assertEquals(List.of(mask(0, 1)), b.nvlinkDomains());
        assertEquals(2, b.largestClique());
        assertEquals(Link.nvlink(2), b.link(0, 1));
        assertEquals(BoardClass.BRIDGED_PAIRS, BoardClass.of(b));
        assertArrayEquals(new int[] {-1, -1}, numa(b), "NUMA Affinity N/A is unknown");
        assertEquals("0-23", b.cpuAffinity(1));
    }

    @Test
    void twoGpuPhbBoxHasNoNvlink() {
        GpuBoard b = TopologyFixtures.parse("2gpu-pcie-phb-stas00.txt");
        assertEquals(2, b.gpuCount());
        assertEquals(List.of(), b.nvlinkDomains());
        assertEquals(1, b.largestClique());
        assertEquals(Link.of(LinkKind.PHB), b.link(1, 0));
        assertEquals(BoardClass.PCIE_ONLY, BoardClass.of(b));
    }

    @Test
    void dellaA100TwoGpusAcrossSocketsIgnoresMlx5RowsAndColumns() {
        GpuBoard b = TopologyFixtures.parse("a100-2gpu-della-sys.txt");
        assertEquals(2, b.gpuCount());
        assertEquals(List.of(), b.nvlinkDomains());
        assertEquals(Link.of(LinkKind.SYS), b.link(0, 1));
        assertArrayEquals(new int[] {0, 1}, numa(b));
        assertEquals("64-127", b.cpuAffinity(1));
    }

    @Test
    void a100PcieTwoGpuNodeWithoutBridgesIsPcieOnlyOnOneNumaNode() {
        GpuBoard b = TopologyFixtures.parse("a100-pcie-2gpu-node.txt");
        assertEquals(2, b.gpuCount());
        assertEquals(List.of(), b.nvlinkDomains());
        assertEquals(Link.of(LinkKind.NODE), b.link(0, 1));
        assertArrayEquals(new int[] {1, 1}, numa(b), "GPU NUMA ID N/A must not shift the NUMA column");
        assertEquals("28-55,84-111", b.cpuAffinity(0));
    }

    @Test
    void a100PcieNvlinkStatusOutputIsRefusedAsNvlinkS() {
        assertRefused("a100-pcie-2gpu-nvlink-s-inactive.txt", 1, "nvidia-smi nvlink -s");
    }

    @Test
    void fourA100PcieWithBridgesAreTwoDomainsOfTwo() {
        GpuBoard b = TopologyFixtures.parse("a100-pcie-4gpu-nvlink-bridge-pairs.txt");
        assertEquals(4, b.gpuCount());
        assertEquals(List.of(mask(0, 1), mask(2, 3)), b.nvlinkDomains());
        assertEquals(2, b.largestClique());
        assertEquals(Link.nvlink(12), b.link(2, 3));
        assertEquals(BoardClass.BRIDGED_PAIRS, BoardClass.of(b));
        assertArrayEquals(new int[] {0, 0, 1, 1}, numa(b));
    }

    @Test
    void dgx1V100IsOneDomainOfEightWithLargestCliqueFour() {
        GpuBoard b = TopologyFixtures.parse("dgx1-v100-8gpu.txt");
        assertEquals(8, b.gpuCount());
        assertEquals(List.of(0xFFL), b.nvlinkDomains());
        assertEquals(4, b.largestClique());
        assertEquals(BoardClass.HYBRID_CUBE_MESH, BoardClass.of(b));
        assertArrayEquals(new long[] {mask(0, 1, 2, 3), mask(4, 5, 6, 7)}, b.alignedBlocks(4));
        assertEquals(Link.nvlink(2), b.link(0, 3));
        assertEquals(Link.of(LinkKind.SYS), b.link(0, 5));
        assertArrayEquals(new int[] {-1, -1, -1, -1, -1, -1, -1, -1}, numa(b), "no NUMA column: unknown");
        assertEquals("0-19,40-59", b.cpuAffinity(7));
    }

    @Test
    void gb200AuthorCondensedTrayIsFourGpusAllNv18OnTwoGraceSockets() {
        GpuBoard b = TopologyFixtures.parse("gb200-4gpu-nv18-author-condensed.txt");
        assertEquals(4, b.gpuCount());
        assertEquals(List.of(0xFL), b.nvlinkDomains());
        assertEquals(4, b.largestClique());
        assertEquals(BoardClass.NVLINK_ALL_TO_ALL, BoardClass.of(b));
        assertArrayEquals(new int[] {0, 0, 1, 1}, numa(b), "lowest of the NUMA Affinity list, not the GPU NUMA ID");
        assertEquals("72-143", b.cpuAffinity(3));
    }

    @Test
    void h100P2pReadMatrixIsRefusedAsP2p() {
        assertRefused("h100-sxm-8gpu-p2p-r.txt", 2, "nvidia-smi topo -p2p");
    }

    @Test
    void h100SxmEightGpusIsOneNvswitchCliqueOfEight() {
        GpuBoard b = TopologyFixtures.parse("h100-sxm-8gpu-stas00.txt");
        assertEquals(8, b.gpuCount());
        assertEquals(List.of(0xFFL), b.nvlinkDomains());
        assertEquals(8, b.largestClique());
        assertEquals(Link.nvlink(18), b.link(7, 0));
        assertEquals(BoardClass.NVSWITCH_ALL_TO_ALL, BoardClass.of(b));
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 1}, numa(b));
        assertEquals("52-103,156-207", b.cpuAffinity(4));
    }

    @Test
    void perlmutterNvlinkStatusIsRefusedAsNvlinkS() {
        assertRefused("hgx-a100-4gpu-nv4-perlmutter-nvlink-s.txt", 1, "nvidia-smi nvlink -s");
    }

    @Test
    void perlmutterP2pNativeMatrixIsRefusedAsP2p() {
        assertRefused("hgx-a100-4gpu-nv4-perlmutter-p2p-n.txt", 2, "nvidia-smi topo -p2p");
    }

    @Test
    void perlmutterFourA100SxmIsAllPairsNv4WithOneNumaNodePerGpu() {
        GpuBoard b = TopologyFixtures.parse("hgx-a100-4gpu-nv4-perlmutter.txt");
        assertEquals(4, b.gpuCount());
        assertEquals(List.of(0xFL), b.nvlinkDomains());
        assertEquals(4, b.largestClique());
        assertEquals(Link.nvlink(4), b.link(1, 2));
        assertEquals(BoardClass.NVLINK_ALL_TO_ALL, BoardClass.of(b));
        assertArrayEquals(new int[] {3, 2, 1, 0}, numa(b));
    }

    @Test
    void hgxA100EightGpusWithFourNicsIsOneNv12CliqueOfEight() {
        GpuBoard b = TopologyFixtures.parse("hgx-a100-8gpu-nv12-4nic.txt");
        assertEquals(8, b.gpuCount());
        assertEquals(List.of(0xFFL), b.nvlinkDomains());
        assertEquals(8, b.largestClique());
        assertEquals(Link.nvlink(12), b.link(3, 4));
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 1}, numa(b));
        assertEquals("0-31,64-95", b.cpuAffinity(0));
    }

    @Test
    void b200NvlinkStatusIsRefused() {
        assertRefused("hgx-b200-8gpu-nvlink-s.txt", 1, "nvidia-smi nvlink -s");
    }

    @Test
    void b200P2pNativeMatrixIsRefused() {
        assertRefused("hgx-b200-8gpu-p2p-n.txt", 2, "nvidia-smi topo -p2p");
    }

    @Test
    void h200NvlinkStatusIsRefused() {
        assertRefused("hgx-h200-8gpu-vastai-nvlink-s.txt", 1, "nvidia-smi nvlink -s");
    }

    @Test
    void hgxH200WithAnsiUnderlinedHeaderAndTenNicsIsOneCliqueOfEight() {
        GpuBoard b = TopologyFixtures.parse("hgx-h200-8gpu.txt");
        assertEquals(8, b.gpuCount());
        assertEquals(List.of(0xFFL), b.nvlinkDomains());
        assertEquals(8, b.largestClique());
        assertEquals(Link.nvlink(18), b.link(5, 2));
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 1}, numa(b));
        assertEquals("64-127,192-255", b.cpuAffinity(7));
    }

    @Test
    void l4P2pMatrixWithChipsetNotSupportedIsRefused() {
        assertRefused("l4-2gpu-p2p-r.txt", 2, "nvidia-smi topo -p2p");
    }

    @Test
    void fourL40sArePcieOnlyOnTwoSockets() {
        GpuBoard b = TopologyFixtures.parse("l40s-4gpu-pcie-node-sys.txt");
        assertEquals(4, b.gpuCount());
        assertEquals(List.of(), b.nvlinkDomains());
        assertEquals(1, b.largestClique());
        assertEquals(Link.of(LinkKind.NODE), b.link(2, 3));
        assertEquals(Link.of(LinkKind.SYS), b.link(1, 2));
        assertEquals(BoardClass.PCIE_ONLY, BoardClass.of(b));
        assertArrayEquals(new int[] {0, 0, 1, 1}, numa(b));
    }

    @Test
    void eightRtx4090AreAllSysWithoutALegend() {
        GpuBoard b = TopologyFixtures.parse("rtx4090-8gpu-pcie-sys.txt");
        assertEquals(8, b.gpuCount());
        assertEquals(List.of(), b.nvlinkDomains());
        assertEquals(8 * 7 / 2 * 5, b.pathCost(0xFFL), "every pair SYS (rank 5)");
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 1}, numa(b));
    }

    @Test
    void ibmAc922FourV100AreTwoNv3Pairs() {
        GpuBoard b = TopologyFixtures.parse("v100-ibm-ac922-4gpu-nv3-traverse.txt");
        assertEquals(4, b.gpuCount());
        assertEquals(List.of(mask(0, 1), mask(2, 3)), b.nvlinkDomains());
        assertEquals(2, b.largestClique());
        assertEquals(Link.nvlink(3), b.link(3, 2));
        assertEquals(BoardClass.BRIDGED_PAIRS, BoardClass.of(b));
        assertArrayEquals(new int[] {0, 0, 8, 8}, numa(b));
        assertEquals("0-63", b.cpuAffinity(0));
    }
}
