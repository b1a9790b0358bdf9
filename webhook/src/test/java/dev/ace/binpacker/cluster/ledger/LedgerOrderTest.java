package dev.ace.binpacker.cluster.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.admission.Json;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.TestNodes;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.cluster.view.NodeReports;
import dev.ace.binpacker.cluster.view.PodCache;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.topology.GpuBoard;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A replica mirrors each node's GpuLedger in version order: the leader's fresh read of an object can go ahead of
 * the watch, and the watch's older event arriving after it must not drop what the store holds (the namespace cap
 * counted one reservation too few, and its GPUs looked free on this replica until the next event).
 */
class LedgerOrderTest {
    private static final String HGX = "hgx-h100-0";
    private final Allocator allocator = new Allocator(new ClusterState(), PackerConfig.defaults());
    private final LocalView view = new LocalView(() -> allocator, new PodCache(), new PendingDemand(Metrics.NOOP), Metrics.NOOP,
            Json.newMapper(), new NodeReports(30_000, () -> 0L));

    private static Reservation entry(String id, long mask) {
        return new Reservation(id, HGX, mask, 1000, 0, 2, HGX + "/nvl0", 0, true, new Reservation.Owner("req-" + id, "ml", id, null));
    }

    private static LedgerDoc doc(String version, Reservation... entries) {
        return new LedgerDoc(HGX, version, LedgerDoc.Capacity.UNKNOWN, List.of(entries));
    }

    @Test
    void an_older_version_arriving_after_a_newer_one_changes_nothing() {
        view.nodeChanged(TestNodes.node(HGX, 8));
        Reservation a = entry("a", GpuBoard.mask(0, 1));
        Reservation b = entry("b", GpuBoard.mask(2, 3));
        view.ledgerChanged(doc("5", a));
        view.ledgerChanged(doc("7", a, b)); // a fresh read, ahead of the watch
        view.ledgerChanged(doc("6", a)); // the watch's event for version 6, late
        assertTrue(allocator.ledger().get("b").isPresent(), "b stays: the store holds it from version 7 on");
        assertEquals(2, allocator.pendingIn("ml"));
    }

    @Test
    void a_newer_version_that_drops_an_entry_releases_it_and_a_deleted_object_starts_over() {
        view.nodeChanged(TestNodes.node(HGX, 8));
        view.ledgerChanged(doc("5", entry("a", GpuBoard.mask(0, 1))));
        view.ledgerChanged(doc("8"));
        assertFalse(allocator.ledger().get("a").isPresent(), "the store dropped it");
        view.ledgerGone(HGX);
        view.ledgerChanged(doc("3", entry("c", GpuBoard.mask(4, 5)))); // a lower version after a delete is a new object's
        assertTrue(allocator.ledger().get("c").isPresent());
    }
}
