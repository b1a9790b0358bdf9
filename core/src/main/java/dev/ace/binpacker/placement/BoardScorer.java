package dev.ace.binpacker.placement;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import java.util.Arrays;

/**
 * Per-board precomputation behind the score: for every free mask, how many disjoint NVLink
 * cliques of each block size it still holds and how many aligned blocks (PCIe pairs, NUMA
 * halves, quads) are still whole. The value of a free mask is the demand-weighted GPU capacity
 * it still offers to TP groups; the damage of a choice is the value it destroys.
 *
 * <p>Best choices per (free mask, size, clique?) are memoised and dropped when the demand mix
 * moves, so a decision on a known board state is a table lookup.
 *
 * <p>A scorer made for a Topology Manager policy that aligns NUMA ({@code restricted},
 * {@code single-numa-node}) offers only sets the kubelet would admit; nodes without such a policy
 * share the unconstrained scorer of their board, so their path is unchanged.
 */
final class BoardScorer {
    /** Aligned blocks count this much of a clique: enough to break ties towards them, never enough to beat capacity. */
    static final double ALIGNED_BONUS = 0.25;

    private final GpuBoard board;
    private final TopologyManagerPolicy policy;
    private final boolean constrained;
    private final int n;
    private final boolean tabled;
    private final byte[][] cap;      // [slot][mask] disjoint cliques of SIZES[slot]
    private final byte[][] aligned;  // [slot][mask] whole aligned blocks of SIZES[slot]
    private double[] value;          // [mask], for the current mix
    private long mixVersion = -1;
    private final long[][] bestSet = new long[65][];       // [k][mask], 0 = not computed, -1 = none
    private final double[][] bestDamage = new double[65][];
    private final long[][] bestSetAny = new long[65][];
    private final double[][] bestDamageAny = new double[65][];

    BoardScorer(GpuBoard board) {
        this(board, TopologyManagerPolicy.NONE);
    }

    BoardScorer(GpuBoard board, TopologyManagerPolicy policy) {
        this.board = board;
        this.policy = policy;
        this.constrained = policy.constrains();
        this.n = board.gpuCount();
        this.tabled = n <= GpuBoard.ENUMERATION_LIMIT;
        int slots = DemandMix.SIZES.length;
        this.cap = new byte[slots][];
        this.aligned = new byte[slots][];
        if (tabled) buildTables();
    }

    GpuBoard board() { return board; }

    TopologyManagerPolicy policy() { return policy; }

    /** False for a set the node's kubelet would refuse under its Topology Manager policy. */
    private boolean admitted(long set) { return !constrained || policy.admits(board, set); }

    private void buildTables() {
        int masks = 1 << n;
        for (int s = 0; s < DemandMix.SIZES.length; s++) {
            int size = DemandMix.SIZES[s];
            if (size > n) break;
            byte[] c = new byte[masks];
            if (board.isAllToAll()) {
                // NVSwitch and full meshes: any set is a clique, so capacity is a division (DGX-2 has
                // 16 GPUs: the general recursion would walk 6,435 cliques for each of 65,536 masks).
                for (int m = 1; m < masks; m++) c[m] = (byte) (Integer.bitCount(m) / size);
            } else {
                long[][] byLow = cliquesByLowestGpu(board.cliques(size));
                // cap(mask) = max(cap(mask - low), max over cliques whose lowest GPU is low of 1 + cap(mask - clique))
                for (int m = 1; m < masks; m++) {
                    int low = Integer.numberOfTrailingZeros(m);
                    int best = c[m & (m - 1)];
                    for (long q : byLow[low]) {
                        if ((q & ~m) == 0) best = Math.max(best, 1 + c[m & ~(int) q]);
                    }
                    c[m] = (byte) best;
                }
            }
            cap[s] = c;
            long[] blocks = board.alignedBlocks(size);
            byte[] a = new byte[masks];
            for (int m = 1; m < masks; m++) {
                int count = 0;
                for (long b : blocks) if ((b & ~m) == 0) count++;
                a[m] = (byte) count;
            }
            aligned[s] = a;
        }
    }

    private long[][] cliquesByLowestGpu(long[] cliques) {
        java.util.List<java.util.List<Long>> lists = new java.util.ArrayList<>();
        for (int g = 0; g < n; g++) lists.add(new java.util.ArrayList<>());
        for (long q : cliques) lists.get(Long.numberOfTrailingZeros(q)).add(q);
        long[][] out = new long[n][];
        for (int g = 0; g < n; g++) out[g] = lists.get(g).stream().mapToLong(Long::longValue).toArray();
        return out;
    }

    private void refresh(DemandMix mix) {
        if (mix.version() == mixVersion && value != null) return;
        mixVersion = mix.version();
        if (tabled) {
            int masks = 1 << n;
            double[] v = new double[masks];
            for (int m = 0; m < masks; m++) v[m] = computeValue(m, mix);
            value = v;
        }
        Arrays.fill(bestSet, null);
        Arrays.fill(bestDamage, null);
        Arrays.fill(bestSetAny, null);
        Arrays.fill(bestDamageAny, null);
    }

    private double computeValue(int m, DemandMix mix) {
        double v = 0;
        for (int s = 0; s < DemandMix.SIZES.length; s++) {
            if (cap[s] == null) break;
            double w = mix.weight(s);
            if (w == 0) continue;
            v += w * DemandMix.SIZES[s] * (cap[s][m] + ALIGNED_BONUS * aligned[s][m]);
        }
        return v;
    }

    /** The part of {@link #value} lost by taking GPU {@code bit} from {@code free} that counts single GPUs (size 1), not NVLink cliques. */
    double singleGpuLoss(long free, long bit, DemandMix mix) {
        if (!tabled || cap[0] == null) return 0;
        int m = (int) free, after = (int) (free & ~bit);
        return mix.weight(0) * ((cap[0][m] - cap[0][after]) + ALIGNED_BONUS * (aligned[0][m] - aligned[0][after]));
    }

    /** Demand-weighted TP capacity of a free mask. */
    double value(long freeMask, DemandMix mix) {
        refresh(mix);
        if (tabled) return value[(int) freeMask];
        return Long.bitCount(freeMask); // boards above the enumeration limit: capacity is just GPUs
    }

    /**
     * The best set of {@code k} free GPUs for this free mask: an NVLink clique when {@code clique},
     * else any set (best connected first). Returns 0 when none exists. {@code damageOut[0]} gets its damage.
     */
    long best(long freeMask, int k, boolean clique, DemandMix mix, double[] damageOut) {
        refresh(mix);
        if (Long.bitCount(freeMask) < k) return 0;
        if (!tabled) return greedy(freeMask, k, clique, damageOut);
        int m = (int) freeMask;
        long[][] sets = clique ? bestSet : bestSetAny;
        double[][] dmg = clique ? bestDamage : bestDamageAny;
        if (sets[k] == null) {
            sets[k] = new long[1 << n];
            dmg[k] = new double[1 << n];
        }
        long cached = sets[k][m];
        if (cached == 0) {
            cached = search(m, k, clique, dmg[k]);
            sets[k][m] = cached;
        }
        if (cached == -1) return 0;
        // A set of any GPUs (a pod that is not a TP replica) is counted net of its footprint; a clique gross.
        damageOut[0] = mix.netFor(clique) ? mix.beyondFootprint(dmg[k][m], k) : dmg[k][m];
        return cached;
    }

    private long search(int m, int k, boolean clique, double[] dmgRow) {
        double before = value[m];
        long best = -1;
        double bestDamage = Double.MAX_VALUE;
        int bestCost = Integer.MAX_VALUE;
        if (clique) {
            for (long q : board.cliques(k)) {
                if ((q & ~m) != 0 || !admitted(q)) continue;
                double d = before - value[m & ~(int) q];
                int cost = spreadCost(q);
                if (better(d, cost, q, bestDamage, bestCost, best)) {
                    best = q; bestDamage = d; bestCost = cost;
                }
            }
        } else {
            int[] idx = GpuBoard.indices(m);
            long[] holder = {-1};
            double[] hd = {Double.MAX_VALUE};
            int[] hc = {Integer.MAX_VALUE};
            subsets(idx, 0, k, 0L, m, before, holder, hd, hc);
            best = holder[0]; bestDamage = hd[0];
        }
        if (best != -1) dmgRow[m] = bestDamage;
        return best;
    }

    private void subsets(int[] idx, int from, int left, long acc, int m, double before,
                         long[] best, double[] bestDamage, int[] bestCost) {
        if (left == 0) {
            if (!admitted(acc)) return;
            double d = before - value[m & ~(int) acc];
            int cost = board.pathCost(acc) * 16 + spreadCost(acc);
            if (better(d, cost, acc, bestDamage[0], bestCost[0], best[0])) {
                best[0] = acc; bestDamage[0] = d; bestCost[0] = cost;
            }
            return;
        }
        for (int i = from; i <= idx.length - left; i++) {
            subsets(idx, i + 1, left - 1, acc | (1L << idx[i]), m, before, best, bestDamage, bestCost);
        }
    }

    private static boolean better(double d, int cost, long set, double bestD, int bestCost, long bestSet) {
        if (d < bestD - 1e-9) return true;
        if (d > bestD + 1e-9) return false;
        if (cost != bestCost) return cost < bestCost;
        return bestSet == -1 || Long.compareUnsigned(set, bestSet) < 0;
    }

    /** Number of NUMA nodes a set spans beyond the first: TP traffic that leaves the socket is slower. */
    private int spreadCost(long set) {
        long numas = 0;
        long rest = set;
        while (rest != 0) {
            int g = Long.numberOfTrailingZeros(rest);
            rest &= rest - 1;
            int node = board.numaNode(g);
            if (node >= 0 && node < 64) numas |= 1L << node;
        }
        return Math.max(0, Long.bitCount(numas) - 1);
    }

    // Boards of more than 16 GPUs (no such single node ships today): lowest-index clique growth.
    private long greedy(long freeMask, int k, boolean clique, double[] damageOut) {
        long rest = freeMask;
        while (rest != 0) {
            int start = Long.numberOfTrailingZeros(rest);
            rest &= rest - 1;
            long set = 1L << start;
            long cand = freeMask & ~set;
            while (Long.bitCount(set) < k && cand != 0) {
                int g = Long.numberOfTrailingZeros(cand);
                cand &= cand - 1;
                if (!clique || board.isClique(set | (1L << g))) set |= 1L << g;
            }
            if (Long.bitCount(set) == k && admitted(set)) {
                damageOut[0] = k;
                return set;
            }
        }
        return 0;
    }
}
