package dev.ace.binpacker.truth;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The ledger takes the node's word over its own choice (DESIGN "Truth and trust"): given the ledger
 * entries of one node and the node agent's report, returns the entries re-keyed to the GPUs each pod
 * really holds, the GPUs that leave capacity, and every drift found. Pure and deterministic; the
 * caller writes the result with its compare-and-swap and counts the drift.
 *
 * <p>Entries whose pod the node does not report (pending reservations, pods not admitted by the
 * kubelet yet) keep their GPU count; they keep their GPUs too unless a reported pod or an unhealthy
 * GPU has them, in which case they move to free GPUs the way the kubelet would hand them out (an
 * NVLink clique for TP, within the NUMA nodes they had, lowest index first), or are returned as
 * displaced when none are left.
 */
public final class NodeReconciler {
    private NodeReconciler() {}

    public static Reconciliation reconcile(GpuBoard board, List<LedgerEntry> entries, NodeReport report) {
        long all = board.allGpus();
        long unhealthy = all & ~report.healthy();
        List<LedgerEntry> out = new ArrayList<>();
        List<Drift> drift = new ArrayList<>();
        List<LedgerEntry> released = new ArrayList<>();
        List<LedgerEntry> unconfirmed = new ArrayList<>();
        Set<String> matched = new HashSet<>();
        long exclusive = 0;

        // ACE's own reservations first, so they, not an observed duplicate, stand for a pod both name.
        List<LedgerEntry> ordered = entries.stream()
                .sorted(Comparator.comparing((LedgerEntry e) -> e.source() != LedgerEntry.Source.ACE)).toList();
        for (LedgerEntry e : ordered) {
            NodeReport.PodDevices truth = e.podName() == null ? null : report.pod(e.namespace(), e.podName()).orElse(null);
            if (truth == null) {
                unconfirmed.add(e);
                continue;
            }
            if (!matched.add(truth.key())) {
                released.add(e);
                continue;
            }
            long held = truth.held();
            if (held != e.gpuMask() && e.source() == LedgerEntry.Source.ACE) {
                drift.add(new Drift(Drift.Kind.MOVED, e.id(), e.namespace(), e.podName(), e.gpuMask(), held));
                if (splitWholePair(board, report, truth, e.gpuMask(), unhealthy)) {
                    drift.add(new Drift(Drift.Kind.SPLIT_PAIR, e.id(), e.namespace(), e.podName(), e.gpuMask(), held));
                }
            }
            checkHeld(board, e.id(), truth, e.tp(), unhealthy, drift);
            out.add(e.confirmedOn(held, !truth.exclusive()));
            exclusive |= truth.gpus();
        }
        for (NodeReport.PodDevices p : report.pods()) {
            if (matched.contains(p.key())) continue;
            String id = "pod:" + p.key();
            drift.add(new Drift(Drift.Kind.UNSEEN_POD, id, p.namespace(), p.name(), 0, p.held()));
            checkHeld(board, id, p, 1, unhealthy, drift);
            out.add(new LedgerEntry(id, LedgerEntry.Source.OBSERVED, p.namespace(), p.name(), p.held(),
                    !p.exclusive(), 1, false, true));
            exclusive |= p.gpus();
        }

        long busy = exclusive | unhealthy;
        List<LedgerEntry> clashing = new ArrayList<>();
        for (LedgerEntry e : unconfirmed) {
            if (e.shared() || (e.gpuMask() & busy) == 0) {
                out.add(e);
                if (!e.shared()) busy |= e.gpuMask();
            } else {
                clashing.add(e);
            }
        }
        List<LedgerEntry> displaced = new ArrayList<>();
        for (LedgerEntry e : clashing) {
            long to = replacement(board, report, all & ~busy, e);
            drift.add(new Drift(Drift.Kind.DISPLACED, e.id(), e.namespace(), e.podName(), e.gpuMask(), to));
            if (to == 0) {
                displaced.add(e);
            } else {
                out.add(e.movedTo(to));
                busy |= to;
            }
        }
        return new Reconciliation(out, unhealthy, drift, displaced, released);
    }

    private static void checkHeld(GpuBoard board, String id, NodeReport.PodDevices p, int tp, long unhealthy, List<Drift> drift) {
        long held = p.held();
        int k = Long.bitCount(held);
        if (tp >= 2 && p.exclusive() && k >= 2 && !board.isClique(held) && board.largestClique() >= k) {
            drift.add(new Drift(Drift.Kind.NOT_A_CLIQUE, id, p.namespace(), p.name(), held, held));
        }
        if ((held & unhealthy) != 0) {
            drift.add(new Drift(Drift.Kind.UNHEALTHY_GPU, id, p.namespace(), p.name(), held & unhealthy, held & unhealthy));
        }
    }

    /**
     * True when a 1-GPU pod was planned on the lone GPU of a broken bridged pair and the kubelet gave it
     * a GPU whose partner nobody else holds: it broke a whole pair where ACE had chosen not to.
     */
    private static boolean splitWholePair(GpuBoard board, NodeReport report, NodeReport.PodDevices pod, long planned, long unhealthy) {
        long held = pod.gpus();
        if (Long.bitCount(held) != 1 || Long.bitCount(planned) != 1 || !pod.exclusive()) return false;
        long others = unhealthy;
        for (NodeReport.PodDevices p : report.pods()) if (!p.key().equals(pod.key())) others |= p.held();
        long gotPartner = partner(board, held);
        long plannedPartner = partner(board, planned);
        return gotPartner != 0 && (gotPartner & others) == 0 && plannedPartner != 0 && (plannedPartner & others) != 0;
    }

    /** The other GPU of a bridged pair (the only NVLink peer, and mutual), or 0 when the GPU is not in one. */
    static long partner(GpuBoard board, long gpu) {
        int g = Long.numberOfTrailingZeros(gpu);
        if (g >= board.gpuCount()) return 0;
        long peers = board.nvlinkPeers(g);
        if (Long.bitCount(peers) != 1) return 0;
        return board.nvlinkPeers(Long.numberOfTrailingZeros(peers)) == gpu ? peers : 0;
    }

    /**
     * Free GPUs for an entry that lost its own: as many as it had, a clique when it is TP and the free
     * GPUs hold one, inside the NUMA nodes it had when possible, admitted by the node's Topology
     * Manager policy; 0 when nothing fits.
     */
    static long replacement(GpuBoard board, NodeReport report, long free, LedgerEntry e) {
        int k = e.gpuCount();
        if (Long.bitCount(free) < k) return 0;
        long numaOfOld = numaMask(board, e.gpuMask());
        long best = 0;
        int bestRank = Integer.MAX_VALUE;
        for (long set : candidates(board, free, k, e.tp() >= 2)) {
            if (!report.policy().admits(board, set)) continue;
            int rank = (numaMask(board, set) & ~numaOfOld) == 0 ? 0 : 1;
            if (rank < bestRank || (rank == bestRank && Long.compareUnsigned(set, best) < 0)) {
                best = set;
                bestRank = rank;
            }
        }
        return best;
    }

    /** Cliques of size k inside {@code free} when wanted and present, else every k-subset (small boards) or the lowest k. */
    private static List<Long> candidates(GpuBoard board, long free, int k, boolean clique) {
        List<Long> out = new ArrayList<>();
        if (clique) {
            for (long q : board.cliques(k)) if ((q & ~free) == 0) out.add(q);
            if (!out.isEmpty()) return out;
        }
        if (board.gpuCount() <= GpuBoard.ENUMERATION_LIMIT) {
            int[] idx = GpuBoard.indices(free);
            subsets(idx, 0, k, 0L, out);
        } else {
            long set = 0;
            for (long rest = free; rest != 0 && Long.bitCount(set) < k; rest &= rest - 1) set |= Long.lowestOneBit(rest);
            out.add(set);
        }
        return out;
    }

    private static void subsets(int[] idx, int from, int left, long acc, List<Long> out) {
        if (left == 0) {
            out.add(acc);
            return;
        }
        for (int i = from; i <= idx.length - left; i++) subsets(idx, i + 1, left - 1, acc | (1L << idx[i]), out);
    }

    private static long numaMask(GpuBoard board, long set) {
        long m = 0;
        for (long rest = set; rest != 0; rest &= rest - 1) {
            int node = board.numaNode(Long.numberOfTrailingZeros(rest));
            m |= node < 0 || node >= 63 ? 1L << 63 : 1L << node;
        }
        return m;
    }
}
