package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The earmark for the oldest waiting TP replica (issue 20): which node, who keeps off it, when it lifts. */
class EarmarksTest {
    private static final List<Pool> INFERENCE = List.of(Pool.INFERENCE);

    private static Allocator fleet(Earmarks.Rule rule, String... names) {
        ClusterState state = new ClusterState();
        for (String n : names) state.upsert(Boards.node(n, Pool.INFERENCE, Boards.HGX_H100));
        return new Allocator(state, PackerConfig.defaults(), ReservationStore.IN_MEMORY, rule);
    }

    private static void hold(Allocator a, String id, String node, int... gpus) {
        assertEquals(Ledger.Outcome.RESERVED, a.adopt(new Reservation(id, node, GpuBoard.mask(gpus), 1000, 0, gpus.length, null, 0, false)));
    }

    private static PlacementRequest tp(String id, int k) {
        return PlacementRequest.whole(id, WorkloadClass.INFERENCE, k, k, INFERENCE, NodeConstraints.NONE);
    }

    private static Optional<String> node(Allocator.Outcome o) { return o.placed() ? Optional.of(o.reservation().node()) : Optional.empty(); }

    @Test
    void drain_counts_the_used_gpus_inside_the_emptiest_clique() {
        assertEquals(0, Earmarks.drain(Boards.HGX_H100, 0xff, 8));
        assertEquals(2, Earmarks.drain(Boards.HGX_H100, 0xfc, 8), "NVSwitch: any 8 GPUs, two of them used");
        assertEquals(0, Earmarks.drain(Boards.HGX_H100, 0xf0, 4));
        assertEquals(1, Earmarks.drain(Boards.A100_PCIE_PAIRS, GpuBoard.mask(0, 2), 2), "bridged pairs: one GPU of either pair used");
        assertEquals(-1, Earmarks.drain(Boards.A100_PCIE_PAIRS, 0xf, 4), "no 4-clique on the board at all");
    }

    /** a: 6 GPUs used, b: 4 used, c: 4 used; a TP 8 waits. */
    private static Allocator waitingTp8(Earmarks.Rule rule) {
        Allocator a = fleet(rule, "a", "b", "c");
        hold(a, "a-held", "a", 0, 1, 2, 3, 4, 5);
        hold(a, "b-held", "b", 0, 1, 2, 3);
        hold(a, "c-held", "c", 0, 1, 2, 3);
        assertFalse(a.place(tp("big", 8), false, 0, "big").placed());
        a.awaiting("big", tp("big", 8));
        return a;
    }

    @Test
    void the_oldest_waiter_has_the_node_with_fewest_gpus_to_drain_and_others_keep_off_it_while_another_node_fits() {
        Allocator a = waitingTp8(Earmarks.Rule.SOFT);
        assertEquals(Optional.of("b"), a.earmarkedFor("big"), "b and c both need 4 GPUs drained: the lower index");
        assertEquals(Optional.of("c"), node(a.place(tp("t4", 4), false, 0)), "a TP 4 that would take b (lowest index) goes to c");
        assertEquals(Optional.of("a"), node(a.place(tp("t2", 2), false, 0)), "a TP 2 fills a's last pair");
        assertEquals(Optional.of("b"), node(a.place(tp("t2b", 2), false, 0)), "nothing else fits: the earmarked node, nobody waits for it");
    }

    @Test
    void a_strict_earmark_makes_the_later_pod_wait_instead() {
        Allocator a = waitingTp8(Earmarks.Rule.STRICT);
        assertEquals(Optional.of("c"), node(a.place(tp("t4", 4), false, 0)));
        assertEquals(Optional.of("a"), node(a.place(tp("t2", 2), false, 0)));
        assertFalse(a.place(tp("t2b", 2), false, 0).placed());
    }

    @Test
    void the_waiter_takes_its_node_when_it_drains_and_the_earmark_lifts() {
        Allocator a = waitingTp8(Earmarks.Rule.SOFT);
        a.release("b-held");
        assertEquals(Optional.of("b"), node(a.place(tp("big", 8), false, 0, "big")));
        assertEquals(Optional.empty(), a.earmarkedFor("big"));
        assertEquals(Optional.of("a"), node(a.place(tp("t2", 2), false, 0)), "no earmark left: best fit again");
    }

    @Test
    void a_younger_waiter_keeps_off_the_oldest_waiters_node_and_the_queue_order_decides_who_is_oldest() {
        Allocator a = waitingTp8(Earmarks.Rule.SOFT);
        assertEquals(Optional.of("b"), a.earmarkedFor("big"));
        a.awaiting("small", tp("small", 4));
        hold(a, "c-more", "c", 4, 5, 6, 7);
        a.release("a-held");
        hold(a, "a-less", "a", 0, 1, 2, 3);
        // a and b have 4 free each: a tie keeps the TP 8's earmark on b
        assertEquals(Optional.of("b"), a.earmarkedFor("big"));
        assertEquals(Optional.of("a"), node(a.place(tp("small", 4), true, 0, "small")), "a younger waiter keeps off b");
        LinkedHashMap<String, PlacementRequest> queue = new LinkedHashMap<>();
        queue.put("small", tp("small", 4));
        queue.put("big", tp("big", 8));
        a.waitersAre(queue); // a higher priority: small is first now
        assertTrue(a.earmarkedFor("small").isPresent());
        assertEquals(Optional.empty(), a.earmarkedFor("big"), "only the first waiter has an earmark");
        queue.remove("small");
        a.waitersAre(queue);
        assertTrue(a.earmarkedFor("big").isPresent(), "the one left is first now");
    }

    @Test
    void with_no_waiter_decisions_are_those_of_the_engine_without_earmarks() {
        Allocator on = fleet(Earmarks.Rule.SOFT, "a", "b");
        Allocator off = fleet(Earmarks.Rule.OFF, "a", "b");
        for (int i = 0; i < 6; i++) {
            int k = new int[] {2, 4, 1, 2, 4, 1}[i];
            assertEquals(node(off.place(tp("p" + i, k), false, 0)), node(on.place(tp("p" + i, k), false, 0)));
        }
    }
}
