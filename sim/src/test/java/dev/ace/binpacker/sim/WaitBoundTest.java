package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WaitBoundTest {
    private static final double MIN = 60, HOUR = 3600;

    private static OpenbNode hgx(String name) { return new OpenbNode(name, 224000, 2097152, 8, "HGX-H100"); }

    private static FleetPod tp(String id, int k, double arrival, double duration) {
        return new FleetPod(id, arrival, duration, "tp" + k, k, 1000, k);
    }

    /** A single-GPU pod that ends the trace (the floor counts GPUs up to the last arrival, as the simulator's figures do). */
    private static FleetPod end(double at) { return new FleetPod("end-of-trace", at, MIN, "single", 1, 1000, 1); }

    private static WaitBound oneHgx() { return new WaitBound(new SimCluster(List.of(hgx("h")), new OpenbBoards())); }

    @Test
    void tp8_replicas_that_overlap_on_one_board_make_one_wait_and_no_short_wait_can_hide_it() {
        List<List<FleetPod>> trace = List.of(List.of(tp("a", 8, 0, 10 * HOUR), tp("b", 8, HOUR, HOUR), tp("c", 8, 3 * HOUR, HOUR), end(12 * HOUR)));
        WaitBound.Result r = oneHgx().minWaits(trace, 30);
        assertEquals("OPTIMAL", r.status());
        assertEquals(3, r.replicas());
        // a holds the board for 10 h: kept waiting, a lets b and c start on arrival; started, a makes both wait
        assertEquals(1, r.floor());
        // a p95 of 5 min needs 20 waits for each long one; three replicas cannot give that
        assertTrue(oneHgx().minWaitsWithTail(trace, 5, 30).infeasible());
    }

    @Test
    void a_wait_within_the_tail_limit_is_allowed_and_one_beyond_it_is_not() {
        // b arrives 2 min before a leaves: a wait of 2 min (<= 5) lets both run on the one board
        List<List<FleetPod>> close = List.of(List.of(tp("a", 8, 0, HOUR), tp("b", 8, 58 * MIN, HOUR), end(5 * HOUR)));
        WaitBound.Result r = oneHgx().minWaitsWithTail(close, 5, 30);
        assertEquals("OPTIMAL", r.status());
        assertEquals(1, r.floor());
        // 10 min before: b (or a) waits longer than 5 min, and one long wait alone breaks the p95
        List<List<FleetPod>> far = List.of(List.of(tp("a", 8, 0, HOUR), tp("b", 8, 50 * MIN, HOUR), end(5 * HOUR)));
        assertTrue(oneHgx().minWaitsWithTail(far, 5, 30).infeasible());
        assertEquals(1, oneHgx().minWaits(far, 30).floor());
        assertThrows(IllegalArgumentException.class, () -> oneHgx().minWaitsWithTail(far, 0, 30));
    }

    @Test
    void tp2_replicas_take_the_bridged_pairs_and_only_tp2_fits_there() {
        WaitBound b = new WaitBound(new SimCluster(List.of(hgx("h"), new OpenbNode("n", 128000, 1048576, 4, "H100-NVL-bridged"),
                new OpenbNode("l", 96000, 524288, 8, "L4")), new OpenbBoards()));
        // clique pools: the HGX board's 8 GPUs (cliques of 8), the bridged node's 4 (cliques of 2); the L4 has no NVLink
        assertEquals(Map.of(2, 4L, 8, 8L), b.pools());
        // the HGX board is taken by a TP 8: a TP 2 starts on a pair, a TP 4 cannot (it needs a clique of 4)
        List<FleetPod> pair = List.of(tp("big", 8, 0, HOUR), tp("p", 2, MIN, HOUR), end(5 * HOUR));
        List<FleetPod> four = List.of(tp("big", 8, 0, HOUR), tp("q", 4, MIN, HOUR), end(5 * HOUR));
        assertEquals(0, b.minWaits(List.of(pair), 30).floor());
        assertEquals(1, b.minWaits(List.of(four), 30).floor());
        // three TP 2 beside the TP 8: two pairs, and the third waits (or the TP 8 does, and they share its board)
        List<FleetPod> three = List.of(tp("big", 8, 0, HOUR), tp("p1", 2, 1, HOUR), tp("p2", 2, 2, HOUR), tp("p3", 2, 3, HOUR), end(5 * HOUR));
        assertEquals(1, b.minWaits(List.of(three), 30).floor());
        // pooled over traces, as the simulator's figures are
        assertEquals(2, b.minWaits(List.of(four, three), 30).floor());
    }

    @Test
    void no_run_of_the_engine_waits_fewer_replicas_than_the_floor() {
        // a small fleet under pressure, so that ACE's replicas do wait: 4 HGX boards, 2 bridged-pair nodes, 1 L4
        List<OpenbNode> nodes = new ArrayList<>();
        for (int i = 0; i < 4; i++) nodes.add(hgx("h" + i));
        for (int i = 0; i < 2; i++) nodes.add(new OpenbNode("n" + i, 128000, 1048576, 4, "H100-NVL-bridged"));
        nodes.add(new OpenbNode("l", 96000, 524288, 8, "L4"));
        SimCluster cluster = new SimCluster(nodes, new OpenbBoards());
        WaitBound bound = new WaitBound(cluster);
        for (long seed = 1; seed <= 2; seed++) {
            List<FleetPod> trace = FleetTrace.generate(seed, 300, 6, FleetTrace.DEFAULT_MIX);
            FleetResult ace = new ProtocolB(cluster).run("ace", trace, seed);
            assertEquals(100.0, ace.tpFullBandwidthPct(), 1e-9);
            assertTrue(ace.tpEverWaited() > 0, "the fleet is meant to be under pressure");
            WaitBound.Result any = bound.minWaits(List.of(trace), 60);
            assertEquals("OPTIMAL", any.status());
            assertTrue(any.floor() <= ace.tpEverWaited(), "floor " + any.floor() + " above ACE's " + ace.tpEverWaited() + " waits");
            // ACE's own schedule meets a tail limit of its own p95, so the floor under that limit is at most its waits
            WaitBound.Result tail = bound.minWaitsWithTail(List.of(trace), ace.waits().p95Minutes() + 1e-6, 60);
            assertTrue(!tail.infeasible() && tail.floor() <= ace.tpEverWaited(),
                    "floor with p95 <= " + ace.waits().p95Minutes() + " min: " + tail.floor() + " (" + tail.status() + "), ACE " + ace.tpEverWaited());
            assertTrue(tail.floor() >= any.floor());
        }
    }
}
