package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The indexes that keep a committed admission's cost independent of how many reservations are held (issue 31): the
 * ledger's pending entries by namespace, and the allocator's pinned requests by node, each checked against the walk
 * of every entry that they replace.
 */
class LedgerIndexTest {
    private static final List<String> NAMESPACES = List.of("ml", "eval", "batch");

    private static ClusterState hgx(int nodes) {
        ClusterState s = new ClusterState();
        for (int i = 0; i < nodes; i++) s.upsert(Boards.node("hgx-" + i, Pool.INFERENCE, Boards.HGX_H100));
        return s;
    }

    /** What the namespace cap read before the index: every entry held, filtered. */
    private static List<Reservation> walked(Ledger l, String namespace) {
        return l.all().stream().filter(r -> r.isAce() && r.pending() && namespace.equals(r.owner().namespace())).toList();
    }

    private static Reservation pending(String id, String node, long mask, String namespace) {
        return new Reservation(id, node, mask, 1000, 0, Long.bitCount(mask), null, 0, true,
                new Reservation.Owner("req-" + id, namespace, "pod-", null));
    }

    @Test
    void a_tied_entry_leaves_its_namespace_pending_list_and_a_released_one_leaves_it_too() {
        Ledger l = new Ledger(hgx(1));
        Reservation a = pending("a", "hgx-0", GpuBoard.mask(0, 1), "ml");
        Reservation b = pending("b", "hgx-0", GpuBoard.mask(2, 3), "ml");
        l.reserve(a);
        l.reserve(b);
        l.record(Reservation.counted("observed/x", "hgx-0", GpuBoard.mask(4), Reservation.Kind.OBSERVED));
        assertEquals(List.of(a, b), l.pendingIn("ml"));
        assertEquals(List.of(), l.pendingIn("eval"));
        Reservation tied = new Reservation(a.id(), a.node(), a.gpuMask(), 1000, 0, 2, null, 0, false, a.owner().tiedTo("uid-a", "pod-a"));
        l.update(tied);
        assertEquals(List.of(b), l.pendingIn("ml"), "tied to its pod: no longer pending");
        l.release(b.id());
        assertEquals(List.of(), l.pendingIn("ml"));
        l.rekey(a.id(), GpuBoard.mask(6, 7), true);
        assertEquals(List.of(), l.pendingIn("ml"), "a tied entry moved by its node's report stays tied");
    }

    @Test
    void the_pending_index_agrees_with_a_walk_of_every_entry_after_any_sequence_of_changes() {
        Random rnd = new Random(31);
        for (int round = 0; round < 200; round++) {
            Ledger l = new Ledger(hgx(4));
            List<String> ids = new ArrayList<>();
            for (int step = 0; step < 60; step++) {
                int op = rnd.nextInt(4);
                if (op <= 1 || ids.isEmpty()) {
                    String id = "r" + step;
                    Reservation r = pending(id, "hgx-" + rnd.nextInt(4), 1L << rnd.nextInt(8), NAMESPACES.get(rnd.nextInt(3)));
                    if (rnd.nextBoolean() ? l.reserve(r) == Ledger.Outcome.RESERVED : l.record(r)) ids.add(id);
                } else {
                    String id = ids.get(rnd.nextInt(ids.size()));
                    Reservation r = l.get(id).orElseThrow();
                    switch (op) {
                        case 2 -> {
                            l.release(id);
                            ids.remove(id);
                        }
                        default -> {
                            if (rnd.nextBoolean()) {
                                l.update(new Reservation(id, r.node(), r.gpuMask(), 1000, 0, r.tp(), null, 0, !r.pending(), r.owner()));
                            } else {
                                l.rekey(id, 1L << rnd.nextInt(8), true);
                            }
                        }
                    }
                }
                for (String ns : NAMESPACES) {
                    List<Reservation> indexed = l.pendingIn(ns);
                    assertEquals(new java.util.HashSet<>(walked(l, ns)), new java.util.HashSet<>(indexed), "round " + round + " step " + step + " " + ns);
                    assertEquals(walked(l, ns).size(), indexed.size(), "each entry once");
                }
            }
        }
    }

    @Test
    void requests_pinned_to_a_node_count_there_until_their_entry_goes_wherever_the_other_entries_are() {
        Allocator a = new Allocator(hgx(2), PackerConfig.defaults());
        Resources needs = new Resources(Map.of("cpu", 4_000L));
        List<String> on0 = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            PlacementRequest r = PlacementRequest.whole("p" + i, WorkloadClass.INFERENCE, 1, 1, List.of(Pool.INFERENCE), NodeConstraints.NONE)
                    .needing(needs);
            Reservation held = a.place(r, false, 0).reservation();
            if (held.node().equals("hgx-0")) on0.add(held.id());
        }
        int on1 = 12 - on0.size();
        assertEquals(4_000L * on0.size(), a.used("hgx-0").get("cpu"));
        assertEquals(4_000L * on1, a.used("hgx-1").get("cpu"));
        a.release(on0.get(0));
        assertEquals(4_000L * (on0.size() - 1), a.used("hgx-0").get("cpu"), "a released entry's requests leave its node");
        assertEquals(4_000L * on1, a.used("hgx-1").get("cpu"), "and nothing else changes");
        a.requested("hgx-0", new Resources(Map.of("cpu", 1_000L)), java.util.Set.of(on0.get(1)));
        assertEquals(1_000L + 4_000L * (on0.size() - 2), a.used("hgx-0").get("cpu"), "a bound pod's requests are counted once, as bound");
    }
}
