package dev.ace.binpacker.placement.group;

import static dev.ace.binpacker.placement.group.GroupFixtures.aceEntries;
import static dev.ace.binpacker.placement.group.GroupFixtures.cluster;
import static dev.ace.binpacker.placement.group.GroupFixtures.freeMasks;
import static dev.ace.binpacker.placement.group.GroupFixtures.group;
import static dev.ace.binpacker.placement.group.GroupFixtures.hgx;
import static dev.ace.binpacker.placement.group.GroupFixtures.hold;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.ReservationStore;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class GroupPlacerTest {

    @Test
    void a_tp8_x2_group_with_one_free_clique_holds_nothing_and_takes_both_once_a_second_frees() {
        Allocator a = cluster(hgx("n0", "r1"), hgx("n1", "r1"));
        hold(a, "n1", 0x01L);
        List<Long> before = freeMasks(a);
        GroupOutcome o = GroupPlacer.reserve(a, group("llama", null, 8, 8), 0);
        GroupOutcome.Waiting w = assertInstanceOf(GroupOutcome.Waiting.class, o);
        assertTrue(w.why().contains("all 2 ranks"), w.why());
        assertEquals(before, freeMasks(a), "half a group holds no GPU");
        assertTrue(aceEntries(a).isEmpty());

        a.release("busy-n1-1");
        GroupOutcome.Reserved r = assertInstanceOf(GroupOutcome.Reserved.class, GroupPlacer.reserve(a, group("llama", null, 8, 8), 0));
        assertEquals(Set.of("n0", "n1"), r.reservations().stream().map(Reservation::node).collect(Collectors.toSet()));
        assertTrue(r.reservations().stream().allMatch(x -> x.gpuMask() == 0xffL));
        assertEquals("uid-llama-0", r.reservations().get(0).owner().podUid(), "each entry is tied to its rank's pod from the start");
    }

    @Test
    void a_group_that_asks_for_one_rack_waits_rather_than_span_two_and_fills_the_rack_that_has_room() {
        Allocator a = cluster(hgx("a0", "r1"), hgx("a1", "r1"), hgx("b0", "r2"), hgx("b1", "r2"), hgx("b2", "r2"));
        hold(a, "a1", 0x01L);
        hold(a, "b1", 0x01L);
        hold(a, "b2", 0x01L);
        // r1 has one free board, r2 one: two in total, none in one rack.
        assertInstanceOf(GroupOutcome.Waiting.class, GroupPlacer.reserve(a, group("g", "rack", 8, 8), 0));
        assertTrue(aceEntries(a).isEmpty());
        a.release("busy-b2-1");
        GroupOutcome.Reserved r = assertInstanceOf(GroupOutcome.Reserved.class, GroupPlacer.reserve(a, group("g", "rack", 8, 8), 0));
        assertEquals("r2", r.domain());
        assertEquals(Set.of("b0", "b2"), r.reservations().stream().map(Reservation::node).collect(Collectors.toSet()));
    }

    @Test
    void without_a_topology_the_ranks_go_anywhere_the_packer_would_put_single_pods() {
        Allocator a = cluster(hgx("a0", "r1"), hgx("b0", "r2"));
        GroupOutcome.Reserved r = assertInstanceOf(GroupOutcome.Reserved.class, GroupPlacer.reserve(a, group("g", null, 4, 4, 4, 4), 0));
        assertEquals(4, r.reservations().size());
        long gpus = r.reservations().stream().mapToLong(Reservation::gpuCount).sum();
        assertEquals(16, gpus);
    }

    @Test
    void a_commit_lost_to_another_replica_mid_group_releases_every_rank_this_attempt_took() {
        AtomicInteger commits = new AtomicInteger();
        List<Reservation> removed = new java.util.ArrayList<>();
        ReservationStore racing = new ReservationStore() {
            @Override
            public List<Reservation> commit(Reservation r) {
                // The second rank's node was taken by another replica: its winner occupies the whole board.
                if (commits.incrementAndGet() == 2) {
                    return List.of(new Reservation("other-replica", r.node(), 0xffL, 1000, 0, 8, null, 0, false));
                }
                return List.of();
            }

            @Override
            public void remove(Reservation r) { removed.add(r); }
        };
        Allocator a = cluster(racing, hgx("n0", "r1"), hgx("n1", "r1"));
        GroupOutcome o = GroupPlacer.reserve(a, group("g", null, 8, 8), 0);
        assertInstanceOf(GroupOutcome.Waiting.class, o);
        assertTrue(aceEntries(a).stream().noneMatch(e -> e.owner().podUid() != null && e.owner().podUid().startsWith("uid-g")),
                "no rank of the group holds anything: " + aceEntries(a));
        assertEquals(1, removed.size(), "the first rank's committed entry was removed from the store");
    }

    @Test
    void a_store_that_fails_mid_group_leaves_nothing_of_the_group_and_the_error_reaches_the_caller() {
        AtomicInteger commits = new AtomicInteger();
        ReservationStore failing = new ReservationStore() {
            @Override
            public List<Reservation> commit(Reservation r) {
                if (commits.incrementAndGet() == 2) throw new IllegalStateException("apiserver 500");
                return List.of();
            }

            @Override
            public void remove(Reservation r) { }
        };
        Allocator a = cluster(failing, hgx("n0", "r1"), hgx("n1", "r1"));
        assertThrows(IllegalStateException.class, () -> GroupPlacer.reserve(a, group("g", null, 8, 8), 0));
        assertTrue(aceEntries(a).isEmpty());
    }

    @Test
    void an_earmark_takes_what_fits_now_in_the_best_rack_and_a_later_reserve_completes_it_there() {
        Allocator a = cluster(hgx("a0", "r1"), hgx("a1", "r1"), hgx("b0", "r2"));
        hold(a, "a1", 0x01L);
        GroupRequest g = group("g", "rack", 8, 8);
        List<Reservation> held = GroupPlacer.earmark(a, g, 0);
        assertEquals(1, held.size());
        String rackOfHeld = held.get(0).node().startsWith("a") ? "r1" : "r2";
        // Complete: the held rank keeps its entry, the other must join it in the same rack.
        GroupRequest withHeld = new GroupRequest("g", List.of(new GroupRequest.Rank(g.ranks().get(0).request(), java.util.Optional.of(held.get(0))),
                g.ranks().get(1)), "rack", false, null);
        GroupOutcome first = GroupPlacer.reserve(a, withHeld, 0);
        if (rackOfHeld.equals("r1")) {
            assertInstanceOf(GroupOutcome.Waiting.class, first, "r1 has one free board only: the second rank waits for it");
            a.release("busy-a1-1");
        } else {
            assertInstanceOf(GroupOutcome.Waiting.class, first);
            throw new AssertionError("the earmark must take the tightest rack that fits most ranks, r1 (a0), not " + held.get(0).node());
        }
        GroupOutcome.Reserved done = assertInstanceOf(GroupOutcome.Reserved.class, GroupPlacer.reserve(a, withHeld, 0));
        assertEquals(Set.of("a0", "a1"), done.reservations().stream().map(Reservation::node).collect(Collectors.toSet()));
    }
}
