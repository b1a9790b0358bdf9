package dev.ace.binpacker.truth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.Link;
import dev.ace.binpacker.topology.LinkKind;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import dev.ace.binpacker.topology.TopologyParser;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class BindingPromiseTest {
    private static GpuBoard fixture(String file) throws Exception {
        return TopologyParser.parse(Files.readString(Path.of("tests/fixtures/topology", file)), file);
    }

    @Test
    @DisplayName("HGX H200 (fixture): a NUMA-half TP4 promises 4 GPUs of one NUMA node, exact indices only as expected")
    void nvswitchHalfIsNumaLocal() throws Exception {
        GpuBoard hgx = fixture("hgx-h200-8gpu.txt");
        BindingPromise p = BindingPromise.at("hgx-0", hgx, TopologyManagerPolicy.NONE, GpuBoard.mask(4, 5, 6, 7));
        BindingPromise.NumaLocal local = assertInstanceOf(BindingPromise.NumaLocal.class, p);
        assertEquals(1, local.numaNode());
        assertFalse(local.enforced());
        assertEquals("4 GPUs of one NUMA node on hgx-0 (expected 4,5,6,7)", p.text());
        assertTrue(assertInstanceOf(BindingPromise.NumaLocal.class,
                BindingPromise.at("hgx-0", hgx, TopologyManagerPolicy.SINGLE_NUMA_NODE, GpuBoard.mask(0, 1))).enforced());
    }

    @Test
    @DisplayName("The whole board leaves the kubelet no choice: exact; a set across NUMA nodes promises only the node")
    void exactAndNodeOnly() throws Exception {
        GpuBoard hgx = fixture("hgx-h200-8gpu.txt");
        assertEquals("GPUs 0,1,2,3,4,5,6,7 on hgx-0",
                assertInstanceOf(BindingPromise.Exact.class, BindingPromise.at("hgx-0", hgx, TopologyManagerPolicy.NONE, hgx.allGpus())).text());
        assertEquals("2 GPUs on hgx-0 (expected 3,4)", assertInstanceOf(BindingPromise.NodeOnly.class,
                BindingPromise.at("hgx-0", hgx, TopologyManagerPolicy.NONE, GpuBoard.mask(3, 4))).text());
        assertEquals("GPU 2 on hgx-0", BindingPromise.confirmed("hgx-0", GpuBoard.mask(2)).text());
    }

    @Test
    @DisplayName("Four PCIe GPUs on one socket under two switches: sets in that NUMA node are not alike, so only the node is promised")
    void unlikeNumaNodePromisesNode() {
        Link[][] links = new Link[4][4];
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 4; j++) links[i][j] = i == j ? Link.SELF : Link.of(i / 2 == j / 2 ? LinkKind.PIX : LinkKind.NODE);
        }
        GpuBoard oneSocket = new GpuBoard("PCIe x4, one socket", links, new int[] {0, 0, 0, 0}, null);
        assertInstanceOf(BindingPromise.NodeOnly.class, BindingPromise.at("pcie-0", oneSocket, TopologyManagerPolicy.NONE, GpuBoard.mask(0, 1)));
    }

    @Test
    @DisplayName("DGX-1 V100 (fixture prints no NUMA column): NUMA unknown, so only the node is promised; a bridged pair per socket is NUMA-local")
    void unknownNumaAndBridgedPairs() throws Exception {
        GpuBoard dgx1 = fixture("dgx1-v100-8gpu.txt");
        assertInstanceOf(BindingPromise.NodeOnly.class, BindingPromise.at("dgx1-0", dgx1, TopologyManagerPolicy.NONE, GpuBoard.mask(0, 1)));
        GpuBoard pairs = fixture("a100-pcie-4gpu-nvlink-bridge-pairs.txt");
        assertInstanceOf(BindingPromise.NumaLocal.class, BindingPromise.at("a100-0", pairs, TopologyManagerPolicy.RESTRICTED, GpuBoard.mask(2, 3)));
    }
}
