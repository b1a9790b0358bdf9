package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * NVIDIA/k8s-device-plugin#1193: 1-GPU pods split bridged pairs. When a 1-GPU pod must land on a
 * pair board, the damage score already sends it to a node whose pair is broken: breaking a whole
 * pair costs a 2-clique, taking the lone GPU of a broken pair costs none.
 */
class BridgedPairPreferenceTest {
    private static GpuBoard fixture(String file) throws Exception {
        return TopologyParser.parse(Files.readString(Path.of("tests/fixtures/topology", file)), file);
    }

    private static PlacementResult.Placed oneGpu(GpuBoard board, int... takenOnSecondNode) {
        ClusterState state = new ClusterState();
        state.upsert(Boards.node("pairs-whole", Pool.INFERENCE, board));
        state.upsert(Boards.node("pairs-broken", Pool.INFERENCE, board));
        Allocator a = new Allocator(state, PackerConfig.defaults());
        a.adopt(new Reservation("other", "pairs-broken", GpuBoard.mask(takenOnSecondNode), 1000, 0, 1, null, 0, false));
        return assertInstanceOf(PlacementResult.Placed.class, a.place(PlacementRequest.whole("p", WorkloadClass.INFERENCE, 1, 1,
                List.of(Pool.INFERENCE), NodeConstraints.NONE), false, 0).result());
    }

    @Test
    @DisplayName("A100 PCIe with NVLink bridges (fixture): a 1-GPU pod takes the partner of a used GPU, not a whole pair")
    void a100PcieBridgedPairs() throws Exception {
        PlacementResult.Placed p = oneGpu(fixture("a100-pcie-4gpu-nvlink-bridge-pairs.txt"), 2);
        assertEquals("pairs-broken", p.node());
        assertArrayEquals(new int[] {3}, p.gpus());
    }

    @Test
    @DisplayName("H100 NVL (catalog board, bridges on (0,1),(2,3)...): the same preference")
    void h100NvlBridgedPairs() {
        GpuBoard nvl = dev.ace.binpacker.topology.BoardCatalog.infer(java.util.Map.of(
                "nvidia.com/gpu.product", "NVIDIA-H100-NVL", "nvidia.com/gpu.count", "4")).board().orElseThrow();
        PlacementResult.Placed p = oneGpu(nvl, 1);
        assertEquals("pairs-broken", p.node());
        assertArrayEquals(new int[] {0}, p.gpus());
    }
}
