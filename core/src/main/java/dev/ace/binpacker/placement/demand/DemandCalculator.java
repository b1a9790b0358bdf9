package dev.ace.binpacker.placement.demand;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The gated queue as nodes to buy (issue 33). Waiters are taken in the order given (the gate queue's: priority,
 * then age), each placed first on GPUs already covered (free now, freed by pending departures, or brought by a
 * signal already made), tightest node first, in cliques of the board's own tables; only what is left is bought,
 * on the cheapest configured node type that can hold it, first fit on nodes bought for earlier waiters. A group
 * is placed whole or not at all: on covered capacity (one domain, whole trays, for a domain group) when it fits
 * there entirely, else every one of its ranks on nodes bought for it alone, so one atomic request serves it.
 * Pure and deterministic; no node is counted for two waiters.
 */
public final class DemandCalculator {
    private DemandCalculator() {}

    public static Demand compute(List<Waiter> waiters, List<Supply> supply, List<Signal> signals, List<NodeType> types) {
        Set<String> ids = new HashSet<>();
        for (Waiter w : waiters) if (!ids.add(w.id())) throw new IllegalArgumentException("waiter " + w.id() + " is listed twice");
        Map<String, NodeType> byKey = new LinkedHashMap<>();
        for (NodeType t : types) {
            if (byKey.put(t.pool() + "/" + t.name(), t) != null) throw new IllegalArgumentException("node type " + t.name() + " is configured twice in pool " + t.pool());
        }
        List<Slot> covered = new ArrayList<>();
        for (Supply s : supply) {
            NodeType t = byKey.get(s.pool() + "/" + s.type());
            covered.add(new Slot(s.name(), s.pool(), s.type(), s.board(), s.covered(), s.domain(), Slot.Origin.SUPPLY, null,
                    t == null ? 0 : t.pricePerNodeHour()));
        }
        for (int i = 0; i < signals.size(); i++) {
            Signal sig = signals.get(i);
            Shape sh = sig.shape();
            NodeType t = byKey.get(sh.pool() + "/" + sh.type());
            if (t == null) throw new IllegalArgumentException("a signal asks for node type " + sh.type() + " in pool " + sh.pool() + ", which is not configured");
            String domain = sh.domainLabel() == null ? null : "signal-" + i;
            for (int n = 0; n < sig.nodes(); n++) {
                covered.add(new Slot("signal:" + i + ":" + sh.pool() + "/" + sh.type() + "/" + sh.cliqueSize() + "#" + n, sh.pool(), sh.type(), t.board(),
                        t.board().allGpus(), domain, Slot.Origin.SIGNAL, sig.group(), t.pricePerNodeHour()));
            }
        }
        Map<NodeType, List<Slot>> shared = new LinkedHashMap<>();
        List<Demand.Ask> groupAsks = new ArrayList<>();
        List<Demand.Cover> covers = new ArrayList<>();
        List<Demand.Unmet> unmet = new ArrayList<>();
        for (Waiter w : waiters) {
            if (w.isGroup()) {
                group(w, covered, byKey.values(), groupAsks, covers, unmet);
                continue;
            }
            Slot on = tightest(covered, w, w.gpusPerRank(), cheapest(byKey.values(), w).map(NodeType::name).orElse(null));
            if (on != null) {
                on.take(w.id(), w.gpusPerRank());
                covers.add(new Demand.Cover(w.id(), on.where));
                continue;
            }
            Optional<NodeType> t = cheapest(byKey.values(), w);
            if (t.isEmpty()) {
                unmet.add(new Demand.Unmet(w.id(), noType(w)));
                continue;
            }
            List<Slot> bought = shared.computeIfAbsent(t.get(), k -> new ArrayList<>());
            Slot fit = bought.stream().filter(s -> Slot.pick(s.board, s.free, w.gpusPerRank()) != 0).findFirst().orElse(null);
            if (fit == null) {
                fit = fresh(t.get(), "new-" + bought.size(), null);
                bought.add(fit);
            }
            fit.take(w.id(), w.gpusPerRank());
        }
        List<Demand.Ask> asks = new ArrayList<>();
        shared.forEach((t, slots) -> {
            Map<Integer, List<Slot>> bySize = new TreeMap<>(Comparator.reverseOrder());
            for (Slot s : slots) bySize.computeIfAbsent(s.largestClique, k -> new ArrayList<>()).add(s);
            bySize.forEach((size, ss) -> asks.add(ask(new Shape(t.pool(), t.name(), size, null), t, null, ss)));
        });
        asks.addAll(groupAsks);
        return new Demand(asks, covers, unmet);
    }

    private static void group(Waiter w, List<Slot> covered, Iterable<NodeType> types, List<Demand.Ask> asks,
                              List<Demand.Cover> covers, List<Demand.Unmet> unmet) {
        String buys = cheapest(types, w).map(NodeType::name).orElse(null);
        List<Slot> on = w.domainLabel() == null ? looseOnCovered(covered, w, buys) : traysOnCovered(covered, w);
        if (on != null) {
            for (int r = 0; r < on.size(); r++) {
                Slot s = on.get(r);
                s.take(w.id() + "#" + r, w.gpusPerRank());
                covers.add(new Demand.Cover(w.id() + "#" + r, s.where));
            }
            return;
        }
        Optional<NodeType> t = cheapest(types, w);
        if (t.isEmpty()) {
            unmet.add(new Demand.Unmet(w.id(), noType(w)));
            return;
        }
        List<Slot> bought = new ArrayList<>();
        for (int r = 0; r < w.ranks(); r++) {
            int k = w.gpusPerRank();
            Slot fit = w.domainLabel() != null ? null
                    : bought.stream().filter(s -> Slot.pick(s.board, s.free, k) != 0).findFirst().orElse(null);
            if (fit == null) {
                fit = fresh(t.get(), w.id() + "-new-" + bought.size(), w.domainLabel() == null ? null : "new:" + w.id());
                bought.add(fit);
            }
            fit.take(w.id() + "#" + r, k);
        }
        asks.add(ask(new Shape(t.get().pool(), t.get().name(), w.gpusPerRank(), w.domainLabel()), t.get(), w.id(), bought));
    }

    /** Every rank of a group without a domain on covered GPUs at once (tried on scratch masks), or null. */
    private static List<Slot> looseOnCovered(List<Slot> covered, Waiter w, String buys) {
        Map<Slot, Long> before = new LinkedHashMap<>();
        List<Slot> out = new ArrayList<>();
        for (int r = 0; r < w.ranks(); r++) {
            Slot s = tightest(covered, w, w.gpusPerRank(), buys);
            if (s == null) break;
            before.putIfAbsent(s, s.free);
            s.free &= ~Slot.pick(s.board, s.free, w.gpusPerRank());
            out.add(s);
        }
        before.forEach((s, f) -> s.free = f);
        return out.size() == w.ranks() ? out : null;
    }

    /**
     * Whole free trays, all in one domain: one a signal brings for this group first, then a real domain, then one a
     * signal brings; among those the tightest, then by name. Null when no domain has enough.
     */
    private static List<Slot> traysOnCovered(List<Slot> covered, Waiter w) {
        Map<String, List<Slot>> byDomain = new TreeMap<>();
        for (Slot s : covered) {
            if (s.domain == null || !s.serves(w) || s.board.gpuCount() != w.gpusPerRank() || !s.wholeFree()) continue;
            byDomain.computeIfAbsent(s.domain, k -> new ArrayList<>()).add(s);
        }
        return byDomain.values().stream().filter(l -> l.size() >= w.ranks())
                .min(Comparator.comparing((List<Slot> l) -> l.get(0).reservedFor == null)
                        .thenComparing(l -> l.get(0).origin).thenComparingInt(List::size))
                .map(l -> List.copyOf(l.subList(0, w.ranks()))).orElse(null);
    }

    /**
     * The covered node a waiter takes a clique of {@code k} on: first what a signal brings for this waiter alone
     * (else it would take nodes another waiter was counted on); then a real node, the one with fewest free GPUs
     * (GPUs here now before GPUs on their way); then nodes signals bring, first fit, those of the type the waiter
     * would buy first, the same first fit a purchase makes, so a signal's nodes go to the waiters it was made for.
     */
    private static Slot tightest(List<Slot> covered, Waiter w, int k, String buys) {
        Slot own = null, real = null, signalled = null, other = null;
        for (Slot s : covered) {
            if (!s.serves(w) || Slot.pick(s.board, s.free, k) == 0) continue;
            if (s.reservedFor != null) {
                if (own == null) own = s;
            } else if (s.origin == Slot.Origin.SUPPLY) {
                if (real == null || Long.bitCount(s.free) < Long.bitCount(real.free)
                        || Long.bitCount(s.free) == Long.bitCount(real.free) && s.price < real.price) real = s;
            } else if (s.type.equals(buys)) {
                if (signalled == null) signalled = s;
            } else if (other == null) other = s;
        }
        return own != null ? own : real != null ? real : signalled != null ? signalled : other;
    }

    /** The cheapest node type of the waiter's pool (and type, if it selects one) that can hold it; ties by name. */
    private static Optional<NodeType> cheapest(Iterable<NodeType> types, Waiter w) {
        NodeType best = null;
        for (NodeType t : types) {
            if (!t.pool().equals(w.pool()) || w.type() != null && !t.name().equals(w.type())) continue;
            if (Slot.pick(t.board(), t.board().allGpus(), w.gpusPerRank()) == 0) continue;
            if (w.domainLabel() != null && (!w.domainLabel().equals(t.domainLabel()) || t.gpus() != w.gpusPerRank()
                    || t.traysPerDomain() < w.ranks())) continue;
            if (best == null || t.pricePerNodeHour() < best.pricePerNodeHour()
                    || t.pricePerNodeHour() == best.pricePerNodeHour() && t.name().compareTo(best.name()) < 0) best = t;
        }
        return Optional.ofNullable(best);
    }

    private static Slot fresh(NodeType t, String where, String domain) {
        return new Slot(where, t.pool(), t.name(), t.board(), t.board().allGpus(), domain, Slot.Origin.BOUGHT, null, t.pricePerNodeHour());
    }

    private static Demand.Ask ask(Shape shape, NodeType t, String group, List<Slot> slots) {
        List<String> all = new ArrayList<>();
        List<List<String>> per = new ArrayList<>();
        for (Slot s : slots) {
            all.addAll(s.waiters);
            per.add(s.waiters);
        }
        return new Demand.Ask(shape, slots.size(), t.pricePerNodeHour(), group, all, per);
    }

    private static String noType(Waiter w) {
        String what = w.ranks() + " x " + w.gpusPerRank() + " GPUs in one clique" + (w.domainLabel() == null ? "" : ", whole trays of one " + w.domainLabel() + " domain");
        return "no node type configured for pool " + w.pool() + (w.type() == null ? "" : " and type " + w.type()) + " holds " + what;
    }
}
