package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PoolStatsTest {
    @Test
    @DisplayName("Clean, fragmented and full domains, stranded GPUs and the ratio on a small inference pool")
    void countsDomainStates() {
        ClusterState s = new ClusterState();
        s.upsert(Boards.node("clean", Pool.INFERENCE, Boards.HGX_H100));
        s.upsert(Boards.node("broken", Pool.INFERENCE, Boards.HGX_H100));
        s.upsert(Boards.node("pairs", Pool.INFERENCE, Boards.A100_PCIE_PAIRS));
        s.upsert(Boards.node("l40s", Pool.INFERENCE, Boards.L40S));
        Ledger l = new Ledger(s);
        l.reserve(new Reservation("a", "broken", GpuBoard.mask(0), 1000, 0, 1, null, 0, false));
        l.reserve(new Reservation("b", "pairs", GpuBoard.mask(0, 1), 1000, 0, 2, null, 0, false));
        l.reserve(new Reservation("c", "pairs", GpuBoard.mask(2), 1000, 0, 1, null, 0, false));
        PoolStats p = PoolStats.of(s).get(Pool.INFERENCE);
        assertEquals(4, p.nodes());
        assertEquals(8 + 8 + 4 + 4, p.gpus());
        assertEquals(8 + 7 + 1 + 4, p.freeGpus());
        assertEquals(1, p.cleanDomains(), "the untouched HGX");
        assertEquals(2, p.fragmentedDomains(), "the HGX with one GPU used and the half-used pair");
        assertEquals(1, p.fullDomains(), "pair (0,1)");
        assertEquals(1 + 4, p.strandedGpus(), "GPU 3 of the pairs board and the four PCIe-only GPUs");
        assertEquals(1, p.free8Cliques());
        assertEquals(8.0 / 16.0, p.fragmentationRatio(), 1e-9, "7 + 1 of 16 free NVLink GPUs are in fragmented domains");
        Map<Pool, PoolStats> all = PoolStats.of(s);
        assertEquals(0, all.get(Pool.SLICING).gpus());
    }
}
