package dev.ace.binpacker.placement;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * GPUs in use that ACE did not reserve, per node: the whole-GPU requests of pods bound there that no
 * ACE entry covers, and the board GPUs the node does not offer (allocatable below the board). Kubernetes
 * counts them as integers, so they are charged to concrete GPUs by a rule (the least damaging free ones,
 * as the packer would pick for a TP 1 request of that size), marked not exact, and charged again
 * whenever the node's entries change. The node agent can re-key them to the true GPUs ({@link Ledger#rekey}).
 */
final class ObservedUsage {
    /** Picks {@code k} of the free GPUs of a node; 0 when it cannot. */
    interface Chooser {
        long choose(int nodeIndex, long freeMask, int k);
    }

    private record NodeUse(int usable, List<Holding> holdings) {}

    private final Map<String, NodeUse> byNode = new HashMap<>();

    void set(String node, int usable, List<Holding> holdings) {
        List<Holding> sorted = new ArrayList<>(holdings);
        sorted.removeIf(h -> h.gpus() <= 0);
        sorted.sort(Comparator.comparing(Holding::key)); // deterministic: the same pods give the same charge
        byNode.put(node, new NodeUse(usable, sorted));
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

    /** Releases the charged (not exact) observed entries of a node and charges them again on the current free GPUs. */
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
        int shortfall = board.gpuCount() - Math.min(use.usable(), board.gpuCount());
        if (shortfall > 0) charge(ledger, chooser, i, board, shortfallId(node), shortfall, 0L, Reservation.Kind.SHORTFALL);
        for (Holding h : use.holdings()) {
            if (ledger.get(observedId(h.key())).isPresent()) continue; // re-keyed by the node agent: exact, left alone
            charge(ledger, chooser, i, board, observedId(h.key()), Math.min(h.gpus(), board.gpuCount()), h.preferred(),
                    Reservation.Kind.OBSERVED);
        }
    }

    private static void charge(Ledger ledger, Chooser chooser, int i, GpuBoard board, String id, int k, long preferred,
                               Reservation.Kind kind) {
        ClusterState state = ledger.state();
        long free = state.freeMask(i);
        long mask = Long.bitCount(preferred) == k && (free & preferred) == preferred ? preferred
                : Long.bitCount(free) >= k ? chooser.choose(i, free, k) : 0;
        if (Long.bitCount(mask) != k) mask = lowest(free, k);
        if (Long.bitCount(mask) < k) mask |= lowest(board.allGpus() & ~mask, k - Long.bitCount(mask)); // over-commit: held twice
        ledger.record(Reservation.counted(id, state.node(i).name(), mask, kind));
    }

    private static long lowest(long mask, int k) {
        long out = 0;
        for (long rest = mask; rest != 0 && Long.bitCount(out) < k; rest &= rest - 1) out |= Long.lowestOneBit(rest);
        return out;
    }

    static String observedId(String key) { return "observed/" + key; }

    static String shortfallId(String node) { return "shortfall/" + node; }
}
