package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.Reservation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An offline improvement step for the optimum study: start from what an online policy placed,
 * then, knowing every pod, insert the pods it refused, moving placed pods out of the way (an
 * ejection chain of depth one: to make room on a node, move one placed pod to another node, or
 * drop it when the refused pod asks for more GPU than it held). Never worse than the online
 * placement; its result is a feasible assignment, so it also seeds CP-SAT ({@link OptimalBound}).
 * Capacity as in protocol A: per-GPU milli, per-node CPU, GPU count and model constraints.
 */
public final class OfflineRepair {
    /** Where each pod sits: node (-1 = not placed) and GPUs (a share's one GPU; none for CPU-only pods). */
    public record Assignment(int[] node, long[] gpus, long allocatedMilli) {}

    private final SimCluster cluster;
    private final List<SimPod> pods;
    private final int[] node;
    private final long[] gpus;
    private final long[] cpuFree;
    private final int[][] milliFree;
    private final List<List<Integer>> onNode = new ArrayList<>();

    private OfflineRepair(SimCluster cluster, List<SimPod> pods, int[] node, long[] gpus) {
        this.cluster = cluster;
        this.pods = pods;
        this.node = node.clone();
        this.gpus = gpus.clone();
        cpuFree = new long[cluster.size()];
        milliFree = new int[cluster.size()][];
        for (int n = 0; n < cluster.size(); n++) {
            cpuFree[n] = cluster.cpuCap(n);
            milliFree[n] = new int[cluster.gpus(n)];
            Arrays.fill(milliFree[n], 1000);
            onNode.add(new ArrayList<>());
        }
        for (int p = 0; p < pods.size(); p++) if (this.node[p] >= 0) take(p, this.node[p], this.gpus[p]);
    }

    /** Replays {@code policy} online over {@code arrivals} (protocol A, one seed) and returns where it put each pod. */
    public static Assignment online(SimCluster cluster, List<SimPod> arrivals, TargetWorkload target, String policy, long seed) {
        SimContext ctx = SimContext.fresh(cluster, target, seed * 7919L + policy.hashCode()); // as ProtocolA.run before issue 20: ties in name order
        Policy p = Policies.create(policy, ctx);
        int[] node = new int[arrivals.size()];
        long[] gpus = new long[arrivals.size()];
        long allocated = 0;
        for (int k = 0; k < arrivals.size(); k++) {
            node[k] = -1;
            if (!p.place(arrivals.get(k), "pod-" + k)) continue;
            Reservation r = p.reservation("pod-" + k).orElseThrow();
            node[k] = ctx.state().indexOf(r.node());
            gpus[k] = arrivals.get(k).cpuOnly() ? 0 : r.gpuMask();
            allocated += arrivals.get(k).gpuMilli();
        }
        return new Assignment(node, gpus, allocated);
    }

    /** The online assignment improved until no refused pod can be inserted (or {@code seconds} pass). */
    public static Assignment improve(SimCluster cluster, List<SimPod> pods, Assignment start, double seconds) {
        OfflineRepair r = new OfflineRepair(cluster, pods, start.node(), start.gpus());
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        boolean moved = true;
        while (moved && System.nanoTime() < deadline) {
            moved = false;
            List<Integer> refused = new ArrayList<>();
            for (int p = 0; p < pods.size(); p++) if (r.node[p] < 0 && pods.get(p).gpuMilli() > 0) refused.add(p);
            refused.sort((a, b) -> Long.compare(pods.get(b).gpuMilli(), pods.get(a).gpuMilli()));
            for (int p : refused) {
                if (System.nanoTime() >= deadline) break;
                if (r.node[p] < 0 && (r.insert(p, -1) || r.ejectOne(p))) moved = true;
            }
        }
        long allocated = 0;
        for (int p = 0; p < pods.size(); p++) if (r.node[p] >= 0) allocated += pods.get(p).gpuMilli();
        return new Assignment(r.node, r.gpus, allocated);
    }

    /** Places {@code p} on the first node (other than {@code except}) where it fits; true if placed. */
    private boolean insert(int p, int except) {
        for (int n = 0; n < cluster.size(); n++) {
            if (n == except) continue;
            long set = fit(p, n);
            if (set >= 0) {
                take(p, n, set);
                return true;
            }
        }
        return false;
    }

    /**
     * Makes room for refused pod {@code p} by taking one placed pod {@code q} off some node: {@code q}
     * moves to another node when it fits there, or is dropped when it held less GPU than {@code p} asks.
     */
    private boolean ejectOne(int p) {
        SimPod pod = pods.get(p);
        for (int n = 0; n < cluster.size(); n++) {
            if (!allowed(pod, n)) continue;
            for (int q : new ArrayList<>(onNode.get(n))) {
                long qSet = gpus[q];
                drop(q);
                long set = fit(p, n);
                if (set >= 0) {
                    take(p, n, set);
                    if (insert(q, n)) return true;
                    if (pods.get(q).gpuMilli() < pod.gpuMilli()) return true; // q refused instead: a net gain
                    drop(p);
                }
                take(q, n, qSet);
            }
        }
        return false;
    }

    private boolean allowed(SimPod pod, int n) {
        return (pod.models() == -1 || (pod.models() & (1 << cluster.modelOf(n))) != 0) && pod.numGpu() <= cluster.gpus(n);
    }

    /** The GPUs {@code p} would take on node {@code n} (0 for a CPU-only pod), or -1 when it does not fit. */
    private long fit(int p, int n) {
        SimPod pod = pods.get(p);
        if (!allowed(pod, n) || cpuFree[n] < pod.cpuMilli()) return -1;
        if (pod.cpuOnly()) return 0;
        int[] free = milliFree[n];
        if (pod.isShare()) {
            int best = -1;
            for (int g = 0; g < free.length; g++) {
                if (free[g] >= pod.milli() && (best < 0 || free[g] < free[best])) best = g;
            }
            return best < 0 ? -1 : 1L << best;
        }
        long set = 0;
        int need = pod.numGpu();
        for (int g = 0; g < free.length && need > 0; g++) {
            if (free[g] == 1000) { set |= 1L << g; need--; }
        }
        return need == 0 ? set : -1;
    }

    private void take(int p, int n, long set) {
        SimPod pod = pods.get(p);
        node[p] = n;
        gpus[p] = set;
        cpuFree[n] -= pod.cpuMilli();
        int milli = pod.isShare() ? pod.milli() : 1000;
        for (long rest = set; rest != 0; rest &= rest - 1) milliFree[n][Long.numberOfTrailingZeros(rest)] -= milli;
        onNode.get(n).add(p);
    }

    private void drop(int p) {
        SimPod pod = pods.get(p);
        int n = node[p];
        cpuFree[n] += pod.cpuMilli();
        int milli = pod.isShare() ? pod.milli() : 1000;
        for (long rest = gpus[p]; rest != 0; rest &= rest - 1) milliFree[n][Long.numberOfTrailingZeros(rest)] += milli;
        onNode.get(n).remove(Integer.valueOf(p));
        node[p] = -1;
        gpus[p] = 0;
    }
}
