package dev.ace.binpacker.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class TopologyManagerPolicyTest {
    private static final GpuBoard HGX = TopologyFixtures.parse("hgx-h200-8gpu.txt");
    private static final GpuBoard PERLMUTTER = TopologyFixtures.parse("hgx-a100-4gpu-nv4-perlmutter.txt");

    @Test
    @DisplayName("single-numa-node admits only sets inside one NUMA node; restricted the fewest NUMA nodes that can hold them")
    void admitsLikeTheKubelet() {
        assertTrue(TopologyManagerPolicy.SINGLE_NUMA_NODE.admits(HGX, GpuBoard.mask(4, 5, 6, 7)));
        assertFalse(TopologyManagerPolicy.SINGLE_NUMA_NODE.admits(HGX, GpuBoard.mask(3, 4)));
        assertFalse(TopologyManagerPolicy.SINGLE_NUMA_NODE.admits(HGX, HGX.allGpus()));
        assertTrue(TopologyManagerPolicy.RESTRICTED.admits(HGX, HGX.allGpus()));
        assertFalse(TopologyManagerPolicy.RESTRICTED.admits(HGX, GpuBoard.mask(0, 1, 2, 4)));
        assertTrue(TopologyManagerPolicy.NONE.admits(HGX, GpuBoard.mask(3, 4)));
        assertTrue(TopologyManagerPolicy.BEST_EFFORT.admits(HGX, GpuBoard.mask(3, 4)));
    }

    @Test
    @DisplayName("Perlmutter A100 x4 (one GPU per NUMA node, fixture): single-numa-node can never admit TP2, restricted admits any pair")
    void oneGpuPerNumaNode() {
        assertFalse(TopologyManagerPolicy.SINGLE_NUMA_NODE.canEverAdmit(PERLMUTTER, 2));
        assertTrue(TopologyManagerPolicy.SINGLE_NUMA_NODE.canEverAdmit(PERLMUTTER, 1));
        assertTrue(TopologyManagerPolicy.RESTRICTED.admits(PERLMUTTER, GpuBoard.mask(0, 3)));
        assertEquals(2, TopologyManagerPolicy.minimalSpan(PERLMUTTER, 2));
    }

    @Test
    @DisplayName("Kubelet spellings parse; blank is the kubelet default none; a typo is refused, except where labels are read leniently")
    void parses() {
        assertEquals(TopologyManagerPolicy.SINGLE_NUMA_NODE, TopologyManagerPolicy.parse("single-numa-node"));
        assertEquals(TopologyManagerPolicy.NONE, TopologyManagerPolicy.parse(" "));
        assertThrows(IllegalArgumentException.class, () -> TopologyManagerPolicy.parse("single-numa"));
        assertEquals(TopologyManagerPolicy.NONE, TopologyManagerPolicy.parseOrNone("single-numa"));
    }
}
