package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure core of "the ledger counts every GPU": observed holdings, shortfall, over-commit, resizes, the store mirror. */
class LedgerTruthTest {
    private static final List<Pool> INFERENCE = List.of(Pool.INFERENCE);

    /** A store that commits everything and remembers what it was asked, so the allocator keeps in-flight entries. */
    private static final class RecordingStore implements ReservationStore {
        final List<Reservation> committed = new ArrayList<>();
        final List<Reservation> removed = new ArrayList<>();

        @Override public List<Reservation> commit(Reservation r) { committed.add(r); return List.of(); }

        @Override public void remove(Reservation r) { removed.add(r); }
    }

    private static Allocator hgx(ReservationStore store) {
        ClusterState s = new ClusterState();
        s.upsert(Boards.node("hgx-0", Pool.INFERENCE, Boards.HGX_H100));
        return new Allocator(s, PackerConfig.defaults(), store);
    }

    private static PlacementRequest tp(int gpus) {
        return PlacementRequest.whole(Reservation.newId(), WorkloadClass.INFERENCE, gpus, gpus, INFERENCE, NodeConstraints.NONE);
    }

    private static long free(Allocator a) { return a.state().freeMask(0); }

    @Test
    void gpus_of_a_pod_ace_did_not_place_are_charged_to_the_gpus_the_packer_would_pick_and_are_not_exact() {
        Allocator a = hgx(ReservationStore.IN_MEMORY);
        a.observe("hgx-0", 8, List.of(new Holding("pod-uid-1", 2)));
        Reservation charged = a.ledger().get("observed/pod-uid-1").orElseThrow();
        assertEquals(Reservation.Kind.OBSERVED, charged.kind());
        assertFalse(charged.exact());
        Allocator fresh = hgx(ReservationStore.IN_MEMORY);
        PlacementResult.Placed p = assertInstanceOf(PlacementResult.Placed.class, fresh.place(tp(2), true, 0).result());
        assertEquals(p.gpuMask(), charged.gpuMask(), "the same GPUs a TP 2 request would get");
        assertEquals(6, Long.bitCount(free(a)));
    }

    @Test
    void a_pod_the_node_reported_keeps_its_real_gpus_even_when_a_pod_charged_by_rule_comes_first() {
        Allocator a = hgx(ReservationStore.IN_MEMORY);
        long byRule = assertInstanceOf(PlacementResult.Placed.class, hgx(ReservationStore.IN_MEMORY).place(tp(2), true, 0).result()).gpuMask();
        // "a-..." sorts first and has no report; "b-..." runs on exactly the GPUs the rule would give "a-..."
        a.observe("hgx-0", 8, List.of(new Holding("a-unreported", 2), new Holding("b-reported", 2, byRule)));
        assertEquals(byRule, a.ledger().get("observed/b-reported").orElseThrow().gpuMask(), "charged where the node says it runs");
        assertEquals(0, a.ledger().get("observed/a-unreported").orElseThrow().gpuMask() & byRule, "the other is charged around it");
        assertEquals(0, a.state().overcommit(0));
    }

    @Test
    void gpus_the_node_reports_unhealthy_leave_capacity_exactly_and_come_back_when_healthy() {
        Allocator a = hgx(ReservationStore.IN_MEMORY);
        a.observe("hgx-0", 7, GpuBoard.mask(2), List.of());
        assertEquals(GpuBoard.mask(2), a.ledger().get("shortfall/hgx-0").orElseThrow().gpuMask());
        assertEquals(GpuBoard.mask(4, 5, 6, 7), assertInstanceOf(PlacementResult.Placed.class, a.place(tp(4), true, 0).result()).gpuMask());
        a.observe("hgx-0", 8, GpuBoard.mask(2, 3), List.of());
        assertEquals(GpuBoard.mask(2, 3), a.ledger().get("shortfall/hgx-0").orElseThrow().gpuMask(),
                "the report outranks an allocatable that has not caught up yet");
        a.observe("hgx-0", 8, 0L, List.of());
        assertTrue(a.ledger().get("shortfall/hgx-0").isEmpty());
        assertEquals(0xffL, free(a));
    }

    @Test
    void allocatable_below_the_board_holds_the_rest_so_a_tp8_no_longer_fits() {
        Allocator a = hgx(ReservationStore.IN_MEMORY);
        a.observe("hgx-0", 6, List.of());
        assertEquals(Reservation.Kind.SHORTFALL, a.ledger().get("shortfall/hgx-0").orElseThrow().kind());
        assertFalse(a.place(tp(8), true, 0).placed());
        assertTrue(a.place(tp(4), false, 0).placed());
    }

    @Test
    void a_pod_bound_onto_gpus_ace_reserved_shows_as_overcommit_and_freeing_them_recharges_exactly() {
        Allocator a = hgx(ReservationStore.IN_MEMORY);
        Allocator.Outcome big = a.place(tp(8), false, 0);
        a.observe("hgx-0", 8, List.of(new Holding("foreign", 3)));
        assertEquals(3, a.state().overcommit(0), "a GPU held twice is counted, not dropped");
        a.release(big.reservation().id());
        assertEquals(0, a.state().overcommit(0));
        assertEquals(5, Long.bitCount(free(a)), "after the release only the foreign pod's 3 GPUs are held");
    }

    @Test
    void a_node_whose_gpu_count_shrinks_keeps_its_entries_and_reports_the_overcommit() {
        Allocator a = hgx(ReservationStore.IN_MEMORY);
        a.place(tp(4), false, 0);
        a.place(tp(4), false, 0);
        a.upsertNode(Boards.node("hgx-0", Pool.INFERENCE, Boards.nvswitch(4, 18)));
        assertEquals(2, a.ledger().all().size(), "held reservations are kept");
        assertEquals(0, free(a));
        assertEquals(4, a.ledger().all().stream().mapToInt(a.ledger()::beyondBoard).sum(), "four held GPUs are beyond the new board");
    }

    @Test
    void the_node_agent_can_rekey_an_entry_to_the_gpus_the_pod_really_holds() {
        Allocator a = hgx(ReservationStore.IN_MEMORY);
        Reservation r = a.place(tp(2), false, 0).reservation();
        long truth = GpuBoard.mask(6, 7);
        assertTrue(a.rekey(r.id(), truth));
        Reservation moved = a.reservation(r.id()).orElseThrow();
        assertEquals(truth, moved.gpuMask());
        assertTrue(moved.exact());
        assertEquals(GpuBoard.mask(0, 1, 2, 3, 4, 5), free(a) & GpuBoard.mask(0, 1, 2, 3, 4, 5));
    }

    @Test
    void a_committed_entry_stays_in_flight_until_the_store_shows_it_and_goes_when_the_store_drops_it() {
        RecordingStore store = new RecordingStore();
        Allocator a = hgx(store);
        Reservation mine = a.place(tp(4), false, 0).reservation();
        assertEquals(List.of(mine), store.committed);
        assertEquals(List.of(mine), a.inFlight());
        a.mirror("hgx-0", List.of()); // an older version of the object, before the commit
        assertTrue(a.reservation(mine.id()).isPresent(), "a lagging mirror never drops an in-flight entry");
        a.mirror("hgx-0", List.of(mine));
        assertEquals(List.of(), a.inFlight(), "seen in the store: mirrored now");
        a.mirror("hgx-0", List.of());
        assertTrue(a.reservation(mine.id()).isEmpty(), "the store dropped it (the leader released it)");
        assertEquals(0xffL, free(a));
    }

    @Test
    void another_replicas_entry_is_counted_and_found_by_its_admission_request() {
        Allocator a = hgx(new RecordingStore());
        Reservation theirs = new Reservation(Reservation.newId(), "hgx-0", GpuBoard.mask(0, 1, 2, 3), 1000, 0, 4, "hgx-0/nvl0", 0, true,
                new Reservation.Owner("request-7", "ml", "llama-", null));
        a.mirror("hgx-0", List.of(theirs));
        assertEquals(theirs, a.heldForRequest("request-7").orElseThrow(), "a reinvocation on this replica recognises it");
        assertEquals(1, a.pendingIn("ml"));
        PlacementResult.Placed p = assertInstanceOf(PlacementResult.Placed.class, a.place(tp(4), true, 0).result());
        assertEquals(0, p.gpuMask() & theirs.gpuMask());
        Reservation moved = theirs.rekeyed(GpuBoard.mask(4, 5, 6, 7), true);
        a.mirror("hgx-0", List.of(moved));
        assertEquals(GpuBoard.mask(0, 1, 2, 3), free(a), "same id, other GPUs: the store's word wins");
    }

    @Test
    void an_admission_retried_with_a_new_id_gets_the_reservation_its_request_already_holds() {
        Allocator a = hgx(ReservationStore.IN_MEMORY);
        Reservation.Owner owner = new Reservation.Owner("request-1", "ml", "p", null);
        Reservation first = a.place(tp(4).ownedBy(owner), false, 0).reservation();
        Allocator.Outcome again = a.place(tp(4).ownedBy(owner), false, 0);
        assertTrue(again.alreadyHeld());
        assertEquals(first, again.reservation());
        assertEquals(1, a.ledger().size());
    }
}
