package dev.ace.binpacker.placement.demand;

import static dev.ace.binpacker.placement.demand.Fleet.CLIQUE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Random queues, inventories and signals; what any demand must satisfy is checked on each. */
class DemandPropertyTest {
    private static final int RUNS = 400;

    @Test
    @DisplayName("Every waiter is counted once: covered, bought for, or unmet, never two of these")
    void everyWaiterOnce() {
        for (int seed = 0; seed < RUNS; seed++) {
            Case c = Case.random(new Random(seed));
            Demand d = c.compute();
            Map<String, Integer> seen = new HashMap<>();
            for (Demand.Cover cv : d.covered()) seen.merge(base(cv.waiter()), 1, Integer::sum);
            for (Demand.Ask a : d.asks()) for (String w : a.waiters()) seen.merge(base(w), 1, Integer::sum);
            for (Demand.Unmet u : d.unmet()) seen.merge(u.waiter(), 1, Integer::sum);
            for (Waiter w : c.waiters) assertEquals(w.ranks(), seen.getOrDefault(w.id(), 0), "seed " + seed + ": waiter " + w.id());
        }
    }

    @Test
    @DisplayName("Never more nodes than the waiting pods need: each bought node holds a waiter, and no two shared nodes could be one")
    void neverMoreThanNeeded() {
        for (int seed = 0; seed < RUNS; seed++) {
            Case c = Case.random(new Random(seed));
            Demand d = c.compute();
            int boughtRanks = 0;
            for (Demand.Ask a : d.asks()) {
                for (List<String> node : a.perNode()) assertTrue(!node.isEmpty(), "seed " + seed + ": a bought node holds nobody");
                boughtRanks += a.waiters().size();
                if (a.group() != null || !"p5.48xlarge".equals(a.shape().type())) continue;
                // all to all: a node was bought only because every earlier one had too few GPUs left
                List<Integer> used = a.perNode().stream().map(n -> n.stream().mapToInt(w -> c.byId.get(base(w)).gpusPerRank()).sum()).toList();
                for (int i = 0; i < used.size(); i++) {
                    for (int j = i + 1; j < used.size(); j++) {
                        assertTrue(used.get(i) + used.get(j) > 8, "seed " + seed + ": two HGX nodes bought with " + used);
                    }
                }
            }
            assertTrue(d.nodes() <= boughtRanks, "seed " + seed + ": more nodes than pods they hold");
        }
    }

    @Test
    @DisplayName("Never fewer than a whole group needs: a group is covered whole or bought whole, domain groups on one tray per rank")
    void neverFewerThanAWholeGroup() {
        for (int seed = 0; seed < RUNS; seed++) {
            Case c = Case.random(new Random(seed));
            Demand d = c.compute();
            for (Waiter w : c.waiters) {
                if (!w.isGroup()) continue;
                long covered = d.covered().stream().filter(cv -> base(cv.waiter()).equals(w.id())).count();
                List<Demand.Ask> mine = d.asks().stream().filter(a -> w.id().equals(a.group())).toList();
                boolean unmet = d.unmet().stream().anyMatch(u -> u.waiter().equals(w.id()));
                assertTrue(covered == w.ranks() && mine.isEmpty() || covered == 0 && (unmet || mine.size() == 1),
                        "seed " + seed + ": group " + w.id() + " half covered (" + covered + " of " + w.ranks() + ")");
                if (mine.isEmpty()) continue;
                Demand.Ask a = mine.get(0);
                NodeType t = Fleet.TYPES.stream().filter(x -> x.name().equals(a.shape().type())).findFirst().orElseThrow();
                if (w.domainLabel() != null) assertEquals(w.ranks(), a.nodes(), "seed " + seed + ": trays of " + w.id());
                else assertTrue(a.nodes() * t.gpus() >= w.gpus(), "seed " + seed + ": too few GPUs bought for " + w.id());
            }
        }
    }

    @Test
    @DisplayName("Covered GPUs are never promised twice: what is covered on a node fits in what it has free or departing")
    void coveredFitsInCapacity() {
        for (int seed = 0; seed < RUNS; seed++) {
            Case c = Case.random(new Random(seed));
            Demand d = c.compute();
            Map<String, Integer> promised = new HashMap<>();
            for (Demand.Cover cv : d.covered()) promised.merge(cv.where(), c.byId.get(base(cv.waiter())).gpusPerRank(), Integer::sum);
            for (Supply s : c.supply) {
                assertTrue(promised.getOrDefault(s.name(), 0) <= Long.bitCount(s.covered()), "seed " + seed + ": node " + s.name());
            }
            Set<String> known = new HashSet<>();
            c.supply.forEach(s -> known.add(s.name()));
            for (String where : promised.keySet()) {
                assertTrue(known.contains(where) || where.startsWith("signal:"), "seed " + seed + ": covered on unknown " + where);
                if (where.startsWith("signal:")) assertTrue(promised.get(where) <= 8, "seed " + seed + ": signal node " + where);
            }
        }
    }

    @Test
    @DisplayName("Once its asks are signals (in any order) the same queue buys nothing more; beside other signals, never more than before")
    void signalledDemandIsMet() {
        for (int seed = 0; seed < RUNS; seed++) {
            Case c = Case.random(new Random(seed));
            Demand d = c.compute();
            Demand first = DemandCalculator.compute(c.waiters, c.supply, List.of(), Fleet.TYPES);
            List<Signal> again = new ArrayList<>();
            for (Demand.Ask a : first.asks()) again.add(new Signal(a.shape(), a.nodes(), a.group()));
            java.util.Collections.shuffle(again, new Random(seed));
            Demand next = DemandCalculator.compute(c.waiters, c.supply, again, Fleet.TYPES);
            assertEquals(0, next.nodes(), "seed " + seed + ": " + next.asks());
            List<Signal> more = new ArrayList<>(c.signals);
            for (Demand.Ask a : d.asks()) more.add(new Signal(a.shape(), a.nodes(), a.group()));
            Demand over = DemandCalculator.compute(c.waiters, c.supply, more, Fleet.TYPES);
            assertTrue(over.nodes() <= d.nodes(), "seed " + seed + ": asked again, " + over.nodes() + " nodes after " + d.nodes());
        }
    }

    private static String base(String rank) {
        int i = rank.indexOf('#');
        return i < 0 ? rank : rank.substring(0, i);
    }

    /** One random queue, inventory and set of signals. */
    private record Case(List<Waiter> waiters, List<Supply> supply, List<Signal> signals, Map<String, Waiter> byId) {
        Demand compute() { return DemandCalculator.compute(waiters, supply, signals, Fleet.TYPES); }

        static Case random(Random r) {
            List<Supply> supply = new ArrayList<>();
            int hgx = r.nextInt(5);
            for (int i = 0; i < hgx; i++) supply.add(node("h" + i, Fleet.HGX_TYPE, r, null));
            int pairs = r.nextInt(3);
            for (int i = 0; i < pairs; i++) supply.add(node("p" + i, Fleet.PAIRS_TYPE, r, null));
            int trays = r.nextInt(10);
            for (int i = 0; i < trays; i++) supply.add(node("t" + i, Fleet.TRAY_TYPE, r, "clu." + r.nextInt(2)));
            List<Signal> signals = new ArrayList<>();
            if (r.nextInt(3) == 0) signals.add(new Signal(new Shape("inference", Fleet.HGX_TYPE.name(), 8, null), 1 + r.nextInt(2), null));
            if (r.nextInt(4) == 0) signals.add(new Signal(new Shape("inference", Fleet.TRAY_TYPE.name(), 4, CLIQUE), 4, "g0"));
            List<Waiter> waiters = new ArrayList<>();
            int n = 1 + r.nextInt(12);
            String[] types = {null, null, Fleet.HGX_TYPE.name(), Fleet.PAIRS_TYPE.name(), Fleet.TRAY_TYPE.name()};
            int[] tps = {1, 2, 2, 4, 4, 8, 8};
            for (int i = 0; i < n; i++) {
                int kind = r.nextInt(6);
                if (kind == 0) waiters.add(Waiter.group("g" + i, "inference", null, 2 + r.nextInt(4), 4, CLIQUE));
                else if (kind == 1) waiters.add(Waiter.group("g" + i, "inference", Fleet.HGX_TYPE.name(), 2, 1 << (1 + r.nextInt(3)), null));
                else waiters.add(Waiter.single("s" + i, r.nextInt(10) == 0 ? "slicing" : "inference", types[r.nextInt(types.length)], tps[r.nextInt(tps.length)]));
            }
            Map<String, Waiter> byId = new HashMap<>();
            waiters.forEach(w -> byId.put(w.id(), w));
            return new Case(waiters, supply, signals, byId);
        }

        private static Supply node(String name, NodeType t, Random r, String domain) {
            long all = t.board().allGpus();
            long free = r.nextInt(3) == 0 ? all : r.nextLong() & all;
            long departing = r.nextLong() & all & ~free;
            return new Supply(name, t.pool(), t.name(), t.board(), free, r.nextBoolean() ? departing : 0, domain);
        }
    }
}
