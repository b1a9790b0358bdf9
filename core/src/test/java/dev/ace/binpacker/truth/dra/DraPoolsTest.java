package dev.ace.binpacker.truth.dra;

import static dev.ace.binpacker.truth.dra.DraFixtures.DRIVER;
import static dev.ace.binpacker.truth.dra.DraFixtures.gpu;
import static dev.ace.binpacker.truth.dra.DraFixtures.gpus;
import static dev.ace.binpacker.truth.dra.DraFixtures.slice;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DraPoolsTest {
    private static final Set<String> GPU_DRIVERS = Set.of(DRIVER);

    @Test
    void aPoolOverTwoSlicesCountsOnceBothAreThere() {
        List<DraDevice> all = gpus(1, 8);
        var half = DraPools.byNode(List.of(slice("a", "n1", 3, 2, all.subList(0, 4))), GPU_DRIVERS).get("n1");
        assertEquals(List.of(), half.devices());
        assertTrue(half.problems().get(0).contains("1 of its 2 ResourceSlices"), half.problems().toString());

        var whole = DraPools.byNode(List.of(slice("a", "n1", 3, 2, all.subList(0, 4)), slice("b", "n1", 3, 2, all.subList(4, 8))), GPU_DRIVERS).get("n1");
        assertEquals(8, whole.devices().size());
        assertEquals(List.of(), whole.problems());
    }

    @Test
    void onlyTheNewestGenerationCounts() {
        var n = DraPools.byNode(List.of(slice("old", "n1", 1, 1, gpus(1, 8)), slice("new", "n1", 2, 1, gpus(1, 6))), GPU_DRIVERS).get("n1");
        assertEquals(6, n.devices().size(), "gpu-6 and gpu-7 disappeared in generation 2");
    }

    @Test
    void aDeviceListedTwiceInOnePoolHoldsTheNode() {
        var n = DraPools.byNode(List.of(slice("a", "n1", 1, 2, gpus(1, 2)), slice("b", "n1", 1, 2, List.of(gpu(1, 1)))), GPU_DRIVERS).get("n1");
        assertEquals(List.of("pool gpu.nvidia.com/n1 lists device gpu-1 twice"), n.problems());
    }

    @Test
    void slicesOfOtherDriversAndOfNoSingleNodeAreLeftOut() {
        DraSlice net = new DraSlice("nic", "rdma.example.com", "n1", 1, 1, "n1", gpus(1, 2));
        DraSlice cluster = new DraSlice("cd", DRIVER, "domain", 1, 1, null, gpus(2, 2));
        Map<String, DraPools.NodeDevices> m = DraPools.byNode(List.of(net, cluster), GPU_DRIVERS);
        assertEquals(Map.of(), m);
    }

    @Test
    void onePoolNamingTwoNodesHoldsBoth() {
        var m = DraPools.byNode(List.of(new DraSlice("a", DRIVER, "p", 1, 2, "n1", gpus(1, 1)),
                new DraSlice("b", DRIVER, "p", 1, 2, "n2", gpus(2, 1))), GPU_DRIVERS);
        assertTrue(m.get("n1").problems().get(0).contains("several nodes"));
        assertTrue(m.get("n2").problems().get(0).contains("several nodes"));
    }

    @Test
    void badSlicesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> slice("a", "n1", -1, 1, List.of()));
        assertThrows(IllegalArgumentException.class, () -> slice("a", "n1", 1, 0, List.of()));
    }
}
