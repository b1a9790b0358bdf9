package dev.ace.binpacker.placement;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * GPUs in use that ACE did not reserve, per node: the whole-GPU requests of pods bound there that no
 * ACE entry covers, and the board GPUs the node does not offer (allocatable below the board, or GPUs
 * the node agent reports unhealthy). Kubernetes counts them as integers, so they are charged to
 * concrete GPUs: first to the GPUs the node reported ({@link Holding#preferred}, the unhealthy GPUs)
 * where those are free, the rest by a rule (the least damaging free ones, as the packer would pick for
 * a TP 1 request of that size). Charged again whenever the node's entries change.
 */
final class ObservedUsage {
    /** Picks {@code k} of the free GPUs of a node; 0 when it cannot. */
    interface Chooser {
        long choose(int nodeIndex, long freeMask, int k);
    }

    private record NodeUse(int usable, long unhealthy, List<Holding> holdings) {}

    /** One charge to make: {@code k} GPUs, {@code preferred} ones first. */
    private record Charge(String id, int k, long preferred, Reservation.Kind kind) {}

    private final Map<String, NodeUse> byNode = new HashMap<>();

    void set(String node, int usable, long unhealthy, List<Holding> holdings) {
        List<Holding> sorted = new ArrayList<>(holdings);
        sorted.removeIf(h -> h.gpus() <= 0);
        sorted.sort(Comparator.comparing(Holding::key)); // deterministic: the same pods give the same charge
        byNode.put(node, new NodeUse(usable, unhealthy, sorted));
    }

    void forget(String node) { byNode.remove(node); }

    /** GPUs counted on a node for pods ACE did not place (over-commit included). */
    int observedOn(String node) {
        NodeUse u = byNode.get(node);
        return u == null ? 0 : u.holdings().stream().mapToInt(Holding::gpus).sum();
    }

    /** Usable GPUs of a node (allocatable capped by the board), or -1 when the cluster has not said. */
    int usable(String node) {
        NodeUse u = byNode.get(node);
        return u == null ? -1 : u.usable();
    }

    /**
     * Releases the charged (not exact) observed entries of a node and charges them again on the current
     * free GPUs: every charge takes its preferred GPUs that are free first, so a pod the node reported
     * is never pushed off its real GPUs by another charge made by rule; then the rest by rule.
     */
    void recharge(String node, Ledger ledger, Chooser chooser) {
        NodeUse use = byNode.get(node);
        java.util.Set<String> still = new java.util.HashSet<>();
        if (use != null) use.holdings().forEach(h -> still.add(observedId(h.key())));
        for (Reservation r : ledger.onNode(node)) {
            if (!r.isAce() && !(r.exact() && still.contains(r.id()))) ledger.release(r.id());
        }
        ClusterState state = ledger.state();
        int i = state.indexOf(node);
        if (use == null || i < 0 || state.node(i).board() == null) return;
        GpuBoard board = state.node(i).board();
        long unhealthy = use.unhealthy() & board.allGpus();
        int shortfall = Math.max(board.gpuCount() - Math.min(use.usable(), board.gpuCount()), Long.bitCount(unhealthy));
        List<Charge> charges = new ArrayList<>();
        if (shortfall > 0) charges.add(new Charge(shortfallId(node), shortfall, unhealthy, Reservation.Kind.SHORTFALL));
        for (Holding h : use.holdings()) {
            if (ledger.get(observedId(h.key())).isPresent()) continue; // re-keyed by the node agent: exact, left alone
            charges.add(new Charge(observedId(h.key()), Math.min(h.gpus(), board.gpuCount()), h.preferred(), Reservation.Kind.OBSERVED));
        }
        long free = state.freeMask(i);
        long[] masks = new long[charges.size()];
        for (int c = 0; c < masks.length; c++) {
            Charge ch = charges.get(c);
            masks[c] = lowest(ch.preferred() & free, ch.k());
            free &= ~masks[c];
        }
        for (int c = 0; c < masks.length; c++) {
            Charge ch = charges.get(c);
            int rest = ch.k() - Long.bitCount(masks[c]);
            if (rest > 0) {
                long more = Long.bitCount(free) >= rest ? chooser.choose(i, free, rest) : 0;
                if (Long.bitCount(more) != rest || (more & ~free) != 0) more = lowest(free, rest);
                masks[c] |= more;
                free &= ~more;
                rest = ch.k() - Long.bitCount(masks[c]);
                // over-commit: held twice, counted rather than dropped
                if (rest > 0) masks[c] |= lowest(board.allGpus() & ~masks[c], rest);
            }
            ledger.record(Reservation.counted(ch.id(), node, masks[c], ch.kind()));
        }
    }

    private static long lowest(long mask, int k) {
        long out = 0;
        for (long rest = mask; rest != 0 && Long.bitCount(out) < k; rest &= rest - 1) out |= Long.lowestOneBit(rest);
        return out;
    }

    static String observedId(String key) { return "observed/" + key; }

    static String shortfallId(String node) { return "shortfall/" + node; }
}
