package dev.ace.binpacker.cluster.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyParser;
import dev.ace.binpacker.truth.dra.DraDevice;
import dev.ace.binpacker.truth.dra.DraJoin;
import dev.ace.binpacker.truth.dra.DraNode;
import dev.ace.binpacker.truth.dra.DraPools;
import dev.ace.binpacker.truth.dra.DraSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The NVIDIA driver's ResourceSlices, as it publishes them, read and joined end to end. */
class ResourceSlicesTest {
    private static final Set<String> DRIVERS = Set.of("gpu.nvidia.com");

    @Test
    void readsTheDriversAttributeNames() throws Exception {
        DraSlice s = DraFixtureFiles.pure("h100-8gpu-slice.yaml").get(0);
        assertEquals("gpu.nvidia.com", s.driver());
        assertEquals("dgx-h100-0", s.pool());
        assertEquals("dgx-h100-0", s.node());
        assertEquals(8, s.devices().size());
        DraDevice g0 = s.devices().get(0);
        assertEquals("gpu-0", g0.name());
        assertEquals(DraDevice.Kind.GPU, g0.kind());
        assertEquals("GPU-6513270e-269e-0d37-f2a7-4de452e6b438", g0.uuid());
        assertEquals("NVIDIA H100 80GB HBM3", g0.productName());
        assertEquals("pci0000:15", g0.pcieRoot());
        assertEquals("0000:18:00.0", g0.pciBusId());
        assertEquals(-1, g0.numaNode());
        assertEquals(List.of(new DraDevice.Taint("gpu.nvidia.com/xid", "79", "NoSchedule")), s.devices().get(6).taints());
    }

    @Test
    void anH100NodeJoinsTheAgentsMatrixByUuidAndHoldsItsTaintedGpu() throws Exception {
        GpuBoard matrix = TopologyParser.parse(Files.readString(Path.of("tests/fixtures/topology/h100-sxm-8gpu-stas00.txt")), "dgx-h100-0");
        var node = DraPools.byNode(DraFixtureFiles.pure("h100-8gpu-slice.yaml"), DRIVERS).get("dgx-h100-0");
        // nvidia-smi numbers the GPUs otherwise than the driver's minors: the agent's GPU 0 is the driver's gpu-1.
        List<String> agent = new ArrayList<>(DraFixtureFiles.uuids("h100-uuids.txt"));
        java.util.Collections.swap(agent, 0, 1);
        DraNode n = DraJoin.join(node, agent, Optional.of(matrix));
        assertTrue(n.served(), n.reason());
        assertEquals("matrix", n.source());
        assertEquals("gpu-1", n.gpus().get(0).name());
        assertEquals(GpuBoard.mask(6), n.fenced());
        assertEquals(GpuBoard.mask(6), n.held());
    }

    @Test
    void aPoolOfTwoSlicesAtGenerationThreeIsWholeAndTheStaleSliceIsIgnored() throws Exception {
        var node = DraPools.byNode(DraFixtureFiles.pure("h100-two-slice-pool.yaml"), DRIVERS).get("dgx-h100-1");
        assertEquals(List.of(), node.problems());
        assertEquals(8, node.devices().size());
        DraNode n = DraJoin.join(node, List.of(), Optional.empty());
        assertTrue(n.served(), n.reason());
        assertTrue(n.source().startsWith("catalog:"), n.source());
        // Only the first slice has arrived: the node is held until the pool is whole.
        var half = DraPools.byNode(DraFixtureFiles.pure("h100-two-slice-pool.yaml").subList(0, 1), DRIVERS).get("dgx-h100-1");
        assertEquals(DraNode.State.HELD, DraJoin.join(half, List.of(), Optional.empty()).state());
    }

    @Test
    void aGpuInStaticMigModeIsHeldForWholeGpuUse() throws Exception {
        var node = DraPools.byNode(DraFixtureFiles.pure("a100-mig-slice.yaml"), DRIVERS).get("a100-mig-0");
        DraNode n = DraJoin.join(node, DraFixtureFiles.uuids("a100-uuids.txt"), Optional.empty());
        assertTrue(n.served(), n.reason());
        assertEquals(GpuBoard.mask(7), n.mig());
        assertEquals(null, n.gpus().get(7));
        assertEquals(GpuBoard.mask(7), n.held());
        assertTrue(n.source().startsWith("catalog:"), n.source());
    }

    @Test
    void aSliceWithoutDriverOrPoolIsRefusedByName() {
        ResourceSlice bad = new ResourceSliceBuilder().withNewMetadata().withName("forged").endMetadata().withNewSpec().withNodeName("n1").endSpec().build();
        var e = assertThrows(IllegalArgumentException.class, () -> ResourceSlices.of(bad));
        assertEquals("ResourceSlice forged has no spec.driver or spec.pool.name", e.getMessage());
    }
}
