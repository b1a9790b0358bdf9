package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The starvation bound (issue 34): past it the oldest waiter's earmarked node takes nothing but the waiter. */
class StarvationBoundTest {
    private static final long BOUND = 60_000;
    private static final long SINCE = 1_000_000;

    private static PlacementRequest tp(String id, int k) {
        return PlacementRequest.whole(id, WorkloadClass.INFERENCE, k, k, List.of(Pool.INFERENCE), NodeConstraints.NONE);
    }

    private static Optional<String> node(Allocator.Outcome o) { return o.placed() ? Optional.of(o.reservation().node()) : Optional.empty(); }

    /** a: 6 of 8 GPUs used, b: 8 used; a TP 8 has waited since {@link #SINCE} and a is its earmark. */
    private static Allocator fullPoolWithTp8Waiting(long bound) {
        ClusterState state = new ClusterState();
        for (String n : List.of("a", "b")) state.upsert(Boards.node(n, Pool.INFERENCE, Boards.HGX_H100));
        Allocator a = new Allocator(state, PackerConfig.defaults(), ReservationStore.IN_MEMORY, Earmarks.Rule.SOFT, bound);
        hold(a, "a-held", "a", 0, 1, 2, 3, 4, 5);
        hold(a, "b-held", "b", 0, 1, 2, 3, 4, 5);
        hold(a, "b-pair", "b", 6, 7);
        assertFalse(a.place(tp("big", 8), false, SINCE, "big").placed());
        a.awaiting("big", tp("big", 8), SINCE);
        assertEquals(Optional.of("a"), a.earmarkedFor("big"));
        return a;
    }

    private static void hold(Allocator a, String id, String node, int... gpus) {
        assertEquals(Ledger.Outcome.RESERVED, a.adopt(new Reservation(id, node, GpuBoard.mask(gpus), 1000, 0, gpus.length, null, 0, false)));
    }

    @Test
    void the_rule_counts_from_the_start_and_is_off_at_zero_or_an_unknown_start() {
        assertFalse(Earmarks.starving(SINCE, SINCE + BOUND - 1, BOUND));
        assertTrue(Earmarks.starving(SINCE, SINCE + BOUND, BOUND));
        assertFalse(Earmarks.starving(SINCE, SINCE + 10 * BOUND, Earmarks.NO_BOUND), "0 turns the bound off");
        assertFalse(Earmarks.starving(SINCE, SINCE + 10 * BOUND, -5), "a negative bound is off too");
        assertFalse(Earmarks.starving(Earmarks.UNKNOWN_SINCE, Long.MAX_VALUE - 1, BOUND));
        assertFalse(Earmarks.starving(SINCE + BOUND, SINCE, BOUND), "a start in the future has not waited");
    }

    @Test
    void before_the_bound_a_small_pod_that_fits_nowhere_else_still_takes_the_earmarked_node() {
        Allocator a = fullPoolWithTp8Waiting(BOUND);
        assertEquals(Optional.of("a"), node(a.place(tp("t1", 1), false, SINCE + BOUND - 1)));
    }

    @Test
    void past_the_bound_new_pods_and_younger_waiters_keep_off_it_and_the_waiter_takes_it_once_it_drained() {
        Allocator a = fullPoolWithTp8Waiting(BOUND);
        long late = SINCE + BOUND;
        assertFalse(a.place(tp("t1", 1), false, late).placed(), "a direct admission waits instead");
        a.awaiting("young", tp("young", 2), late);
        assertFalse(a.place(tp("young", 2), false, late, "young").placed(), "a younger waiter is not released onto it");
        a.release("b-pair");
        assertEquals(Optional.of("a"), a.earmarkedFor("big"), "a tie: the earmark stays");
        assertEquals(Optional.of("b"), node(a.place(tp("t1", 1), false, late)), "backfill where it cannot delay the waiter");
        a.release("a-held");
        assertEquals(Optional.of("a"), node(a.place(tp("big", 8), false, late, "big")), "the drained node is the waiter's");
        assertEquals(Optional.empty(), a.earmarkedFor("big"));
        a.release("t1");
        assertEquals(Optional.of("b"), node(a.place(tp("young", 2), false, late, "young")), "no earmark left: the younger one fits");
    }

    @Test
    void with_the_bound_off_the_small_pods_keep_taking_the_freed_gpus() {
        Allocator a = fullPoolWithTp8Waiting(Earmarks.NO_BOUND);
        long late = SINCE + 100 * BOUND;
        assertEquals(Optional.of("a"), node(a.place(tp("t1", 1), false, late)));
        a.release("t1");
        a.awaiting("young", tp("young", 2), late);
        assertEquals(Optional.of("a"), node(a.place(tp("young", 2), false, late, "young")), "today: the TP 8's last free GPU goes to a later pod");
    }

    @Test
    void the_queue_carries_the_waiting_times_and_only_the_first_waiter_is_bounded() {
        Allocator a = fullPoolWithTp8Waiting(BOUND);
        long late = SINCE + BOUND;
        LinkedHashMap<String, PlacementRequest> queue = new LinkedHashMap<>();
        queue.put("first", tp("first", 4));
        queue.put("big", tp("big", 8));
        a.waitersAre(queue, Map.of("first", late, "big", SINCE)); // a higher priority that has just begun to wait is first
        assertEquals(Optional.of("a"), a.earmarkedFor("first"), "a has 2 free, b none: the first waiter's earmark");
        assertEquals(Optional.of("a"), node(a.place(tp("t1", 1), true, late)), "the first waiter has not waited long: soft");
        a.waitersAre(new LinkedHashMap<>(Map.of("big", tp("big", 8))), Map.of());
        assertFalse(a.place(tp("t1", 1), true, late).placed(), "the time it began to wait stays with the key");
    }
}
