package dev.ace.binpacker.truth.dra;

import static dev.ace.binpacker.truth.dra.DraFixtures.gpu;
import static dev.ace.binpacker.truth.dra.DraFixtures.gpus;
import static dev.ace.binpacker.truth.dra.DraFixtures.mig;
import static dev.ace.binpacker.truth.dra.DraFixtures.uuids;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.BoardCatalog;
import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DraJoinTest {
    private static final GpuBoard HGX8 = BoardCatalog.infer(Map.of(BoardCatalog.PRODUCT_LABEL, "NVIDIA-H100-80GB-HBM3",
            BoardCatalog.COUNT_LABEL, "8")).board().orElseThrow();

    private static DraPools.NodeDevices node(List<DraDevice> devices) { return new DraPools.NodeDevices("n1", devices, List.of()); }

    @Test
    void devicesJoinTheMatrixByUuidWhateverTheirOrderInTheSlice() {
        List<DraDevice> shuffled = new ArrayList<>(gpus(1, 8));
        Collections.reverse(shuffled);
        // The agent's nvidia-smi numbering differs from the driver's minor numbers: GPU 0 is gpu-3's UUID.
        List<String> agent = new ArrayList<>(uuids(1, 8));
        Collections.swap(agent, 0, 3);
        DraNode n = DraJoin.join(node(shuffled), agent, Optional.of(HGX8));
        assertTrue(n.served(), n.reason());
        assertEquals("matrix", n.source());
        assertEquals("gpu-3", n.gpus().get(0).name());
        assertEquals("gpu-0", n.gpus().get(3).name());
        assertEquals(List.of("gpu-3", "gpu-1"), n.devices(GpuBoard.mask(0, 1)).stream().map(DraDevice::name).toList());
        assertEquals(0, n.held());
    }

    @Test
    void aDeviceTheAgentDoesNotListHoldsTheNode() {
        List<String> agent = new ArrayList<>(uuids(1, 8));
        agent.set(5, DraFixtures.uuid(9, 5));
        DraNode n = DraJoin.join(node(gpus(1, 8)), agent, Optional.of(HGX8));
        assertEquals(DraNode.State.HELD, n.state());
        assertTrue(n.reason().contains("gpu-5") && n.reason().contains("not among the 8 GPUs"), n.reason());
    }

    @Test
    void taintedMissingAndMigGpusAreHeld() {
        List<DraDevice> d = new ArrayList<>(gpus(1, 8));
        d.set(2, gpu(1, 2, new DraDevice.Taint("gpu.nvidia.com/xid", "79", "NoSchedule")));
        d.set(4, gpu(1, 4, new DraDevice.Taint("gpu.nvidia.com/unmonitored", null, "None")));
        d.remove(7);                       // gpu-7 disappeared
        d.remove(6);                       // gpu-6 is in MIG mode: only its MIG devices are published
        d.add(mig(1, 6, 0));
        d.add(mig(1, 6, 4));
        DraNode n = DraJoin.join(node(d), uuids(1, 8), Optional.of(HGX8));
        assertTrue(n.served(), n.reason());
        assertEquals(GpuBoard.mask(2), n.fenced(), "NoSchedule fences, None informs");
        assertEquals(GpuBoard.mask(7), n.missing());
        assertEquals(GpuBoard.mask(6), n.mig());
        assertEquals(GpuBoard.mask(2, 6, 7), n.held());
        var e = assertThrows(IllegalArgumentException.class, () -> n.devices(GpuBoard.mask(5, 6)));
        assertEquals("node n1 has no whole-GPU device for GPU 6", e.getMessage());
    }

    @Test
    void withoutTheAgentTheCatalogBoardAndPciOrderAreUsed() {
        List<DraDevice> shuffled = new ArrayList<>(gpus(1, 8));
        Collections.shuffle(shuffled, new java.util.Random(3));
        DraNode n = DraJoin.join(node(shuffled), List.of(), Optional.empty());
        assertTrue(n.served(), n.reason());
        assertEquals("catalog:" + HGX8.name(), n.source());
        assertTrue(n.board().orElseThrow() == HGX8, "the catalog's shared board instance");
        for (int i = 0; i < 8; i++) assertEquals("gpu-" + i, n.gpus().get(i).name(), "PCI bus order");
    }

    @Test
    void aMatrixWithoutUuidsAnUnknownProductOrTwoProductsHoldTheNode() {
        assertTrue(DraJoin.join(node(gpus(1, 8)), List.of(), Optional.of(HGX8)).reason().contains("no GPU UUIDs"));
        List<DraDevice> odd = new ArrayList<>(gpus(1, 2));
        DraDevice g = odd.get(1);
        odd.set(1, new DraDevice(g.name(), g.kind(), g.uuid(), "", "NVIDIA Quantum Widget", "", "", -1, List.of(), List.of()));
        DraNode two = DraJoin.join(node(odd), List.of(), Optional.empty());
        assertEquals(DraNode.State.HELD, two.state());
        assertTrue(two.reason().contains("several products"), two.reason());
        DraNode unknown = DraJoin.join(node(List.of(odd.get(1))), List.of(), Optional.empty());
        assertTrue(unknown.reason().contains("not in the board catalog"), unknown.reason());
        DraNode wrongSize = DraJoin.join(node(gpus(1, 4)), uuids(1, 4), Optional.of(HGX8));
        assertEquals("ace.dev/topology has 8 GPUs, the node agent reports 4", wrongSize.reason());
    }

    @Test
    void poolProblemsHoldAndANodeWithoutGpusIsNotServed() {
        DraNode held = DraJoin.join(new DraPools.NodeDevices("n1", List.of(), List.of("pool p has 1 of its 2 ResourceSlices")), List.of(), Optional.empty());
        assertEquals(DraNode.State.HELD, held.state());
        DraDevice vfio = new DraDevice("gpu-vfio-0", DraDevice.Kind.OTHER, DraFixtures.uuid(1, 0), "", "", "", "", 0, List.of(), List.of());
        assertEquals(DraNode.State.NOT_SERVED, DraJoin.join(node(List.of(vfio)), List.of(), Optional.empty()).state());
    }
}
