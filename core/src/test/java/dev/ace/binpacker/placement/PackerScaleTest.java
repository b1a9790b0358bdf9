package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PackerScaleTest {
    private static final List<Pool> INFERENCE = List.of(Pool.INFERENCE);

    private static Allocator fleet(int nodes) {
        ClusterState s = new ClusterState();
        for (int i = 0; i < nodes; i++) s.upsert(Boards.node(String.format("hgx-%05d", i), Pool.INFERENCE, Boards.HGX_H100));
        return new Allocator(s, PackerConfig.defaults());
    }

    @Test
    @DisplayName("4,000 single-GPU pods on 5,000 HGX nodes break exactly 500 nodes and leave 4,500 clean 8-cliques")
    void singleGpuPodsPackTightly() {
        Allocator a = fleet(5000);
        for (int i = 0; i < 4000; i++) {
            assertTrue(a.place(PlacementRequest.whole("s" + i, WorkloadClass.INFERENCE, 1, 1, INFERENCE, NodeConstraints.NONE), false, 0).placed());
        }
        PoolStats p = PoolStats.of(a.state()).get(Pool.INFERENCE);
        assertEquals(4500, p.cleanDomains());
        assertEquals(4500, p.free8Cliques());
        assertEquals(500, p.fullDomains());
        assertEquals(0, p.fragmentedDomains());
    }

    @Test
    @DisplayName("A mixed TP stream on 2,000 HGX nodes fills every GPU with cliques and never strands one")
    void mixedTpStreamFillsExactly() {
        Allocator a = fleet(2000);
        int[] pattern = {4, 2, 2, 8, 1, 4, 1, 2, 4, 1, 1, 2};
        int gpus = 0;
        int id = 0;
        // 16,000 GPUs; keep asking until the fleet is full
        while (gpus < 16000) {
            int k = pattern[id % pattern.length];
            if (gpus + k > 16000) k = 16000 - gpus;
            var o = a.place(PlacementRequest.whole("m" + id++, WorkloadClass.INFERENCE, k, k, INFERENCE, NodeConstraints.NONE), false, 0);
            assertTrue(o.placed(), "request " + id + " of " + k + " GPUs failed at " + gpus + " GPUs used");
            assertTrue(((PlacementResult.Placed) o.result()).fullBandwidth());
            gpus += k;
        }
        PoolStats p = PoolStats.of(a.state()).get(Pool.INFERENCE);
        assertEquals(0, p.freeGpus());
        assertEquals(2000, p.fullDomains());
    }

    @Test
    @DisplayName("A 16-GPU NVSwitch board (DGX-2) takes TP=8 as an aligned half and TP=16 whole")
    void sixteenGpuBoard() {
        ClusterState s = new ClusterState();
        s.upsert(Boards.node("dgx2-0", Pool.INFERENCE, Boards.nvswitch(16, 6)));
        s.upsert(Boards.node("dgx2-1", Pool.INFERENCE, Boards.nvswitch(16, 6)));
        Allocator a = new Allocator(s, PackerConfig.defaults());
        var first = (PlacementResult.Placed) a.place(PlacementRequest.whole("a", WorkloadClass.INFERENCE, 8, 8, INFERENCE, NodeConstraints.NONE), false, 0).result();
        assertEquals(0xFFL, first.gpuMask());
        var whole = (PlacementResult.Placed) a.place(PlacementRequest.whole("b", WorkloadClass.INFERENCE, 16, 16, INFERENCE, NodeConstraints.NONE), false, 0).result();
        assertEquals("dgx2-1", whole.node());
        var second = (PlacementResult.Placed) a.place(PlacementRequest.whole("c", WorkloadClass.INFERENCE, 8, 8, INFERENCE, NodeConstraints.NONE), false, 0).result();
        assertEquals(0xFF00L, second.gpuMask());
    }
}
