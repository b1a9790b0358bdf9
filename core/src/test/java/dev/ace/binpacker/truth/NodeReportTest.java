package dev.ace.binpacker.truth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class NodeReportTest {
    private static final GpuInventory INVENTORY = GpuInventory.of("""
            0, GPU-5a5a7118-e550-79a1-597e-7631e126c57a, 00000000:18:00.0
            1, GPU-65759866-6a45-99ff-bc37-c534ea0ae191, 00000000:2A:00.0
            """, "");

    @Test
    @DisplayName("A pod's containers add up; replicas count as shared, whole IDs as exclusive; pods without NVIDIA devices are left out")
    void containersOfOnePodAddUp() {
        NodeReport r = NodeReport.of(INVENTORY, TopologyManagerPolicy.NONE, List.of(
                new NodeReport.Holding("ml", "trainer", List.of("GPU-5a5a7118-e550-79a1-597e-7631e126c57a")),
                new NodeReport.Holding("ml", "trainer", List.of("GPU-65759866-6a45-99ff-bc37-c534ea0ae191::1")),
                new NodeReport.Holding("ml", "idle", List.of())),
                List.of("GPU-5a5a7118-e550-79a1-597e-7631e126c57a", "GPU-65759866-6a45-99ff-bc37-c534ea0ae191::0"));
        assertEquals(1, r.pods().size());
        NodeReport.PodDevices t = r.pods().get(0);
        assertEquals(GpuBoard.mask(0), t.gpus());
        assertEquals(GpuBoard.mask(1), t.shared());
        assertEquals(GpuBoard.mask(0, 1), r.healthy());
        assertEquals(0, r.freeHealthy());
        assertEquals(2, r.gpuCount());
    }

    @Test
    @DisplayName("A pending reservation made for a generateName prefix is matched by no pod name until the pod is seen")
    void ledgerEntryOfReservation() {
        Reservation pending = new Reservation("r1", "n", GpuBoard.mask(0, 1), 1000, 0, 2, null, 0, true,
                new Reservation.Owner("uid-1", "ml", "vllm-", null));
        assertNull(LedgerEntry.of(pending).podName());
        Reservation seen = new Reservation("r1", "n", GpuBoard.mask(0, 1), 1000, 0, 2, null, 0, false,
                new Reservation.Owner("uid-1", "ml", "vllm-7f9c", "pod-uid"));
        LedgerEntry e = LedgerEntry.of(seen);
        assertTrue(e.names("ml", "vllm-7f9c"));
        assertEquals(LedgerEntry.Source.ACE, e.source());
        assertEquals(2, e.tp());
    }
}
