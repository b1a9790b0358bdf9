package dev.ace.binpacker.topology;

import static dev.ace.binpacker.topology.GpuBoard.mask;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Matrices users paste that are not in the fixtures, and the garbage the parser must refuse by line. */
class TopologyParserTest {

    private static TopologyParseException refused(String text) {
        return assertThrows(TopologyParseException.class, () -> TopologyParser.parse(text, "pasted"));
    }

    private static void assertSays(TopologyParseException e, int line, String... fragments) {
        assertEquals(line, e.line(), e.getMessage());
        assertTrue(e.getMessage().startsWith("line " + line + ": "), e.getMessage());
        for (String f : fragments) assertTrue(e.getMessage().contains(f), e.getMessage());
    }

    /** DGX-2 style: 16 GPUs behind NVSwitches, every pair NV6 (as posted in NVIDIA/nccl-tests#78). */
    private static String sixteenGpuNv6() {
        StringBuilder sb = new StringBuilder();
        for (int j = 0; j < 16; j++) sb.append("\tGPU").append(j);
        sb.append("\tCPU Affinity\n");
        for (int i = 0; i < 16; i++) {
            sb.append("GPU").append(i);
            for (int j = 0; j < 16; j++) sb.append('\t').append(i == j ? " X " : "NV6");
            sb.append('\t').append(i < 8 ? "0-23,48-71" : "24-47,72-95").append('\n');
        }
        return sb.toString();
    }

    @Test
    void sixteenGpuNvswitchMatrixIsOneCliqueOfSixteen() {
        GpuBoard b = TopologyParser.parse(sixteenGpuNv6(), "dgx2");
        assertEquals(16, b.gpuCount());
        assertEquals(List.of(0xFFFFL), b.nvlinkDomains());
        assertEquals(16, b.largestClique());
        assertEquals(BoardClass.NVSWITCH_ALL_TO_ALL, BoardClass.of(b));
        assertEquals("24-47,72-95", b.cpuAffinity(15));
    }

    @Test
    void oldDriverSocAndPxbCellsReadAsSysAndPxb() {
        String text = """
                        GPU0    GPU1    GPU2    GPU3    CPU Affinity
                GPU0     X      PXB     SOC     SOC     0-7
                GPU1    PXB      X      SOC     SOC     0-7
                GPU2    SOC     SOC      X      PIX     8-15
                GPU3    SOC     SOC     PIX      X      8-15
                """;
        GpuBoard b = TopologyParser.parse(text, "k80");
        assertEquals(Link.of(LinkKind.PXB), b.link(0, 1));
        assertEquals(Link.of(LinkKind.SYS), b.link(0, 2));
        assertEquals(Link.of(LinkKind.PIX), b.link(3, 2));
        assertEquals(BoardClass.PCIE_ONLY, BoardClass.of(b));
    }

    @Test
    void windowsLineEndingsAndAShellPromptBeforeTheMatrixAreAccepted() {
        String text = "$ nvidia-smi topo -m\r\n\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\r\nGPU0\t X \tNV4\t0-15\t0\r\nGPU1\tNV4\t X \t0-15\t0\r\n";
        GpuBoard b = TopologyParser.parse(text, "pasted");
        assertEquals(List.of(mask(0, 1)), b.nvlinkDomains());
        assertEquals(0, b.numaNode(1));
    }

    @Test
    void singleGpuMatrixIsABoardOfOne() {
        GpuBoard b = TopologyParser.parse("\tGPU0\tCPU Affinity\tNUMA Affinity\nGPU0\t X \t0-31\t0\n", "one");
        assertEquals(1, b.gpuCount());
        assertEquals(BoardClass.PCIE_ONLY, BoardClass.of(b));
    }

    @Test
    void emptyTextIsRefusedOnLineOne() {
        assertSays(refused(""), 1, "empty input");
        assertSays(refused(" \n\t\n"), 1, "empty input");
    }

    @Test
    void proseIsRefusedNamingItsFirstLine() {
        assertSays(refused("\nThe GPUs are connected with NVLink.\nAll eight of them.\n"), 2,
                "no `nvidia-smi topo -m` header", "The GPUs are connected");
    }

    @Test
    void truncatedMatrixNamesTheMissingRowAndWhereItShouldBe() {
        String text = """
                        GPU0    GPU1    GPU2    GPU3    CPU Affinity
                GPU0     X      NV4     NV4     NV4     0-7
                GPU1    NV4      X      NV4     NV4     0-7
                """;
        assertSays(refused(text), 4, "truncated", "4 GPUs", "GPU2 is missing");
    }

    @Test
    void rowWithTooFewCellsIsNotSquare() {
        String text = """
                        GPU0    GPU1    GPU2
                GPU0     X      NV4     NV4
                GPU1    NV4      X
                GPU2    NV4     NV4      X
                """;
        assertSays(refused(text), 3, "row GPU1 has 2 cells", "not square");
    }

    @Test
    void moreGpuRowsThanColumnsIsNotSquare() {
        String text = """
                        GPU0    GPU1
                GPU0     X      NV4
                GPU1    NV4      X
                GPU2    NV4     NV4
                """;
        assertSays(refused(text), 4, "GPU2", "not square");
    }

    @Test
    void unknownTokenIsNamedWithItsRowAndColumn() {
        String text = """
                        GPU0    GPU1    GPU2
                GPU0     X      NV4     SYS
                GPU1    NV4      X      NVX
                GPU2    SYS     NVX      X
                """;
        assertSays(refused(text), 3, "'NVX'", "row GPU1", "column GPU2");
    }

    @Test
    void missingDiagonalIsRefused() {
        String text = "\tGPU0\tGPU1\nGPU0\tNV2\tNV2\nGPU1\tNV2\t X \n";
        assertSays(refused(text), 2, "X on the diagonal");
    }

    @Test
    void oneSidedNvlinkIsRefusedAsAsymmetric() {
        String text = """
                        GPU0    GPU1    GPU2
                GPU0     X      NV2     SYS
                GPU1    NV2      X      SYS
                GPU2    NV2     SYS      X
                """;
        assertSays(refused(text), 4, "row GPU2 says NV2 to GPU0", "line 2", "not symmetric");
    }

    @Test
    void gpuColumnsOutOfOrderAreRefusedOnTheHeader() {
        assertSays(refused("\tGPU0\tGPU2\nGPU0\t X \tNV2\nGPU1\tNV2\t X \n"), 1, "GPU2 where GPU1 was expected");
    }

    @Test
    void rowOutOfOrderIsRefused() {
        assertSays(refused("\tGPU0\tGPU1\nGPU1\t X \tNV2\nGPU0\tNV2\t X \n"), 2, "row GPU1 where GPU0 was expected");
    }

    @Test
    void nicRowBeforeTheLastGpuRowIsATruncatedMatrix() {
        assertSays(refused("\tGPU0\tGPU1\tNIC0\nGPU0\t X \tNV2\tPIX\nNIC0\tPIX\tSYS\t X \n"), 3, "expected row GPU1", "NIC0");
    }

    @Test
    void garbageInTheAffinityColumnIsRefused() {
        assertSays(refused("\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV2\tmany\nGPU1\tNV2\t X \t0-3\n"), 2, "'many'", "CPU Affinity");
    }

    @Test
    void nvidiaSmiGpuListIsRefusedAsSuch() {
        assertSays(refused("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-2)\n"), 1, "nvidia-smi -L");
    }
}
