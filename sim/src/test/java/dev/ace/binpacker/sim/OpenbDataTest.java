package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpenbDataTest {
    @Test
    void theOpenbGpuNodeListHoldsTheSixThousandGpusOfThePaper() throws Exception {
        List<OpenbNode> nodes = OpenbLoader.nodes(SimFixtures.OPENB.resolve("openb_node_list_gpu_node.csv"));
        assertEquals(1213, nodes.size());
        assertEquals(6212, nodes.stream().mapToInt(OpenbNode::gpus).sum());
    }

    @Test
    void theDefaultPodListSplitsIntoCpuSharedAndWholeGpuPodsAsTheReadmeCounts() throws Exception {
        SimCluster c = new SimCluster(OpenbLoader.nodes(SimFixtures.OPENB.resolve("openb_node_list_gpu_node.csv")), new OpenbBoards());
        List<SimPod> pods = OpenbLoader.pods(SimFixtures.OPENB.resolve("openb_pod_list_default.csv"), c.modelIndex());
        assertEquals(8152, pods.size());
        assertEquals(1088, pods.stream().filter(SimPod::cpuOnly).count());
        assertEquals(3078, pods.stream().filter(SimPod::isShare).count());
    }

    @Test
    void eightGpuV100IsADgx1CubeMeshSharedPerModelAndCount() {
        OpenbBoards boards = new OpenbBoards();
        GpuBoard b = boards.board("V100M32", 8);
        assertSame(b, boards.board("V100M32", 8));
        assertEquals(4, b.largestClique());
        assertEquals(true, b.isClique(GpuBoard.mask(0, 1, 2, 3)));
        assertEquals(true, b.isClique(GpuBoard.mask(0, 4)));
        assertEquals(false, b.isClique(GpuBoard.mask(0, 5)));
        assertEquals(1, boards.board("T4", 2).largestClique());
        assertEquals(1, boards.board("G2", 8).largestClique());
    }
}
