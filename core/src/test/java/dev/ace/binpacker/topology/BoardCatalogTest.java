package dev.ace.binpacker.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class BoardCatalogTest {

    private static Map<String, String> labels(String product, int count) {
        return Map.of(BoardCatalog.PRODUCT_LABEL, product, BoardCatalog.COUNT_LABEL, Integer.toString(count));
    }

    private static GpuBoard board(String product, int count) {
        BoardInference inf = BoardCatalog.infer(labels(product, count));
        assertTrue(inf.board().isPresent(), () -> product + " x" + count + ": " + inf.reason());
        return inf.board().get();
    }

    @Test
    void hgxH100With8GpusIsOneNvswitchDomainOfNv18WithNumaHalves() {
        BoardInference inf = BoardCatalog.infer(labels("NVIDIA-H100-80GB-HBM3", 8));
        GpuBoard b = inf.board().orElseThrow();
        assertEquals("catalog:HGX H100 8-GPU NVSwitch", inf.source());
        assertEquals(List.of(0xFFL), b.nvlinkDomains());
        assertEquals(8, b.largestClique());
        assertEquals(Link.nvlink(18), b.link(2, 6));
        assertEquals(List.of(0, 0, 0, 0, 1, 1, 1, 1), Stream.of(0, 1, 2, 3, 4, 5, 6, 7).map(b::numaNode).toList());
        assertEquals(MigTables.H100_80GB, inf.migProfiles());
    }

    @Test
    void catalogReturnsTheSameBoardInstanceForTheSameKindAndCount() {
        assertSame(board("NVIDIA-H100-80GB-HBM3", 8), board("NVIDIA-H100-SXM5-80GB", 8));
        assertSame(board("NVIDIA-L40S", 4), board("NVIDIA-L40S", 4));
        assertSame(board("NVIDIA-L40S", 4), board("NVIDIA-L4", 4));
        assertSame(board("NVIDIA-A100-PCIE-40GB", 6), board("NVIDIA-A100-PCIE-40GB", 6));
    }

    @Test
    void eightGpuNvswitchBoardsCarryTheirBondCount() {
        assertEquals(Link.nvlink(12), board("NVIDIA-A100-SXM4-80GB", 8).link(0, 7));
        assertEquals(Link.nvlink(18), board("NVIDIA-H200", 8).link(0, 7));
        assertEquals(Link.nvlink(18), board("NVIDIA-B200", 8).link(3, 4));
        assertEquals(8, board("NVIDIA-B200", 8).largestClique());
    }

    @Test
    void fourGpuSxmBoardsAreDirectMeshes() {
        GpuBoard a100 = board("NVIDIA-A100-SXM4-40GB", 4);
        assertEquals(Link.nvlink(4), a100.link(1, 3));
        assertTrue(a100.isAllToAll());
        assertEquals(Link.nvlink(6), board("NVIDIA-H100-80GB-HBM3", 4).link(0, 2));
    }

    @Test
    void pcieA100AndH100NvlAreBridgedPairs() {
        GpuBoard a100 = board("NVIDIA-A100-PCIE-40GB", 4);
        assertEquals(List.of(0b11L, 0b1100L), a100.nvlinkDomains());
        assertEquals(2, a100.largestClique());
        GpuBoard nvl = board("NVIDIA-H100-NVL", 3);
        assertEquals(List.of(0b11L), nvl.nvlinkDomains());
        assertEquals(MigTables.H100_NVL_94GB, BoardCatalog.infer(labels("NVIDIA-H100-NVL", 2)).migProfiles());
    }

    @Test
    void pcieOnlyCardsHaveNoNvlinkAndNoMig() {
        for (String p : List.of("NVIDIA-L40S", "NVIDIA-L4", "Tesla-T4", "NVIDIA-A10G", "NVIDIA-GeForce-RTX-4090",
                "NVIDIA-RTX-6000-Ada-Generation")) {
            BoardInference inf = BoardCatalog.infer(labels(p, 8));
            assertTrue(inf.board().orElseThrow().nvlinkDomains().isEmpty(), p);
            assertFalse(inf.migCapable(), p);
            assertTrue(inf.migProfiles().isEmpty(), p);
        }
    }

    @Test
    void v100Sxm2With8GpusIsTheDgx1HybridCubeMesh() {
        GpuBoard b = board("Tesla-V100-SXM2-32GB", 8);
        assertEquals(List.of(0xFFL), b.nvlinkDomains());
        assertEquals(4, b.largestClique());
        assertTrue(b.isClique(GpuBoard.mask(0, 1, 2, 3)) && b.isClique(GpuBoard.mask(4, 5, 6, 7)));
        assertEquals(Link.nvlink(2), b.link(0, 4));
        assertFalse(BoardCatalog.infer(labels("Tesla-V100-SXM2-32GB", 8)).migCapable());
    }

    @Test
    void gb200TrayIsFourGpusAllPairsNv18AndNotesTheRackClique() {
        BoardInference inf = BoardCatalog.infer(Map.of(BoardCatalog.PRODUCT_LABEL, "NVIDIA-GB200",
                BoardCatalog.COUNT_LABEL, "4", BoardCatalog.CLIQUE_LABEL, "9277d399-0674-44a9-b64e-d85bb19ce2b0.32766"));
        GpuBoard b = inf.board().orElseThrow();
        assertEquals(4, b.largestClique());
        assertEquals(Link.nvlink(18), b.link(0, 3));
        assertTrue(inf.reason().contains("9277d399-0674-44a9-b64e-d85bb19ce2b0.32766"), inf.reason());
        assertEquals("7g.189gb", inf.migProfiles().get(5).name());
    }

    @Test
    void unknownProductGivesNoBoardAndSaysWhy() {
        BoardInference inf = BoardCatalog.infer(labels("NVIDIA-RTX-A6000", 2));
        assertTrue(inf.board().isEmpty());
        assertEquals("none", inf.source());
        assertTrue(inf.reason().contains("NVIDIA-RTX-A6000") && inf.reason().contains("ace.dev/topology"), inf.reason());
        assertEquals(2, inf.gpuCount());
    }

    @Test
    void partialHgxBaseboardIsNotGuessed() {
        BoardInference inf = BoardCatalog.infer(labels("NVIDIA-H100-80GB-HBM3", 2));
        assertTrue(inf.board().isEmpty());
        assertTrue(inf.reason().contains("partial baseboard"), inf.reason());
        assertTrue(inf.migCapable());
    }

    @Test
    void missingOrBrokenCountGivesNoBoard() {
        assertTrue(BoardCatalog.infer(Map.of(BoardCatalog.PRODUCT_LABEL, "NVIDIA-H200")).board().isEmpty());
        BoardInference inf = BoardCatalog.infer(Map.of(BoardCatalog.PRODUCT_LABEL, "NVIDIA-H200", BoardCatalog.COUNT_LABEL, "eight"));
        assertTrue(inf.reason().contains("eight"), inf.reason());
    }

    @Test
    void everyNodeLabelFixtureIsReadAndExplained() throws IOException {
        try (Stream<java.nio.file.Path> files = Files.list(LabelDumps.DIR)) {
            // label dumps only (.txt, .json); gb200-nvl72-3racks.yaml is a Node list built from one of them (SOURCES.md)
            List<String> names = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".txt") || n.endsWith(".json")).sorted().toList();
            assertEquals(8, names.size());
            for (String n : names) {
                Map<String, String> l = LabelDumps.read(n);
                assertFalse(l.isEmpty(), n);
                assertFalse(BoardCatalog.infer(l).reason().isBlank(), n);
            }
        }
    }

    @Test
    void a100PcieMigSingleStripsTheSuffixAndCountsSevenSlicesAsOneGpu() throws IOException {
        BoardInference inf = BoardCatalog.infer(LabelDumps.read("a100-pcie-40gb-mig-single-labels-partial.txt"));
        assertEquals("A100-PCIE-40GB", inf.product());
        assertEquals(1, inf.gpuCount());
        assertEquals(1, inf.board().orElseThrow().gpuCount());
        assertEquals(MigTables.A100_40GB, inf.migProfiles());
        assertEquals(new MigProfile("1g.5gb", 1, 5, 7), inf.migProfiles().get(0));
    }

    @Test
    void dgxA100MigSingleLabelsGiveOneA100Sxm4WithThe40gbProfiles() throws IOException {
        BoardInference inf = BoardCatalog.infer(LabelDumps.read("a100-sxm4-40gb-dgx-mig-single-nvidia-labels.json"));
        assertEquals("A100-SXM4-40GB", inf.product());
        assertEquals(1, inf.gpuCount());
        assertTrue(inf.migCapable());
        assertEquals(MigTables.A100_40GB, inf.migProfiles());
    }

    @Test
    void dgxA100MixedAndNoneStrategiesReadGpuCountDirectly() throws IOException {
        for (String f : List.of("a100-sxm4-40gb-dgx-mig-mixed-nvidia-labels.json", "a100-sxm4-40gb-dgx-mig-none-nvidia-labels.json",
                "a100-sxm4-40gb-openshift-mig-mixed-labels.txt")) {
            BoardInference inf = BoardCatalog.infer(LabelDumps.read(f));
            assertEquals(1, inf.gpuCount(), f);
            assertEquals("catalog:A100 SXM 1-GPU", inf.source(), f);
            assertEquals(MigTables.A100_40GB, inf.migProfiles(), f);
        }
    }

    @Test
    void h100OperatorLabelsGiveOneH100WithThe80gbProfiles() throws IOException {
        for (String f : List.of("h100-mig-mixed-all-balanced-labels.json", "h100-mig-single-all-disabled-labels.json")) {
            BoardInference inf = BoardCatalog.infer(LabelDumps.read(f));
            assertEquals("NVIDIA-H100-80GB-HBM3", inf.product(), f);
            assertEquals(1, inf.gpuCount(), f);
            assertTrue(inf.board().isPresent(), f);
            assertEquals("7g.80gb", inf.migProfiles().get(5).name(), f);
        }
    }

    @Test
    void gb200CliqueTableWithoutProductLabelGivesNoBoardButNamesTheClique() throws IOException {
        BoardInference inf = BoardCatalog.infer(LabelDumps.read("gb200-oke-gpu-clique-labels.txt"));
        assertTrue(inf.board().isEmpty());
        assertTrue(inf.reason().contains("9277d399-0674-44a9-b64e-d85bb19ce2b0.32766"), inf.reason());
        assertTrue(inf.reason().contains(BoardCatalog.PRODUCT_LABEL), inf.reason());
    }

    @Test
    void migSingleStrategyOnAnHgxNodeCountsFiftySixSlicesAsEightGpus() {
        BoardInference inf = BoardCatalog.infer(Map.of(BoardCatalog.PRODUCT_LABEL, "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb",
                BoardCatalog.COUNT_LABEL, "56", BoardCatalog.MIG_STRATEGY_LABEL, "single"));
        assertEquals(8, inf.gpuCount());
        assertSame(board("NVIDIA-H100-80GB-HBM3", 8), inf.board().orElseThrow());
        assertTrue(inf.reason().contains("56 x 1g.10gb = 8 GPU(s)"), inf.reason());
    }

    @Test
    void migSingleSliceCountThatIsNotWholeGpusGivesNoBoard() {
        BoardInference inf = BoardCatalog.infer(labels("NVIDIA-A100-SXM4-40GB-MIG-3g.20gb", 3));
        assertTrue(inf.board().isEmpty());
        assertEquals(0, inf.gpuCount());
        assertTrue(inf.reason().contains("3 MIG devices of 3g.20gb"), inf.reason());
    }

    @Test
    void productSpellingFromNvidiaSmiWithSpacesMatchesTheSameFamily() {
        assertSame(board("NVIDIA-H100-80GB-HBM3", 8), board("NVIDIA H100 80GB HBM3", 8));
    }
}
