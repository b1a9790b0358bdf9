package dev.ace.binpacker.placement;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.List;

/**
 * The online packer: filter nodes (every reason counted), then pick the node and GPU set that
 * destroys the least demand-weighted TP capacity. Deterministic: ties go to the better connected
 * set, then the fuller node, then the lower node index.
 *
 * <p>Whole-GPU requests run over {@link NodeIndex}: nodes grouped by (pool, board, free mask), so
 * a decision costs one table lookup per distinct board state, not one per node. Requests that
 * also count CPU or share a GPU scan the nodes. Read-only: {@link Allocator} commits.
 */
public final class Packer {
    private final ClusterState state;
    private final PackerConfig config;
    private final NodeIndex index;
    private final double[] scratch = new double[1];

    public Packer(ClusterState state, PackerConfig config) {
        this.state = state;
        this.config = config;
        this.index = new NodeIndex(state);
        if (config.fragmentation() != null) state.addListener((i, before, after) -> config.fragmentation().nodeChanged(state, i));
    }

    public ClusterState state() { return state; }

    public PackerConfig config() { return config; }

    /** The scorer for a node: its board's, narrowed to the sets its kubelet admits when its Topology Manager policy demands it. */
    BoardScorer scorer(NodeInfo n) { return index.scorer(n.board(), n.topologyPolicy()); }

    NodeIndex index() { return index; }

    /**
     * True if some GPU node of {@code pool} (any pool when null) is allowed by the pod's own
     * constraints: answered from the index groups, not by reading every node. Call under the
     * allocator lock.
     */
    public boolean anyAllowed(Pool pool, NodeConstraints c, boolean checkTaints) { return index.pools().anyAllowed(pool, c, checkTaints); }

    /**
     * The pools a whole-GPU inference replica of {@code gpus} GPUs is offered, in order: the
     * inference pool when the pod's constraints allow it, else the general pool; a TP 2 replica
     * first tries NVLink pairs of the general pool (bridged A100/H100 PCIe boards), so the
     * inference pool's 8-GPU domains stay whole for TP 4 and TP 8 (issue 10: in protocol B this
     * removed most of the waiting GPU-hours). Call under the allocator lock.
     */
    public List<Pool> inferencePools(int gpus, NodeConstraints c) {
        List<Pool> pools = new java.util.ArrayList<>(2);
        if (gpus == 2 && index.pools().anyCliqueBoard(Pool.GENERAL, 2, c)) pools.add(Pool.GENERAL);
        if (index.pools().anyAllowed(Pool.INFERENCE, c, true)) pools.add(Pool.INFERENCE);
        if (pools.isEmpty()) pools.add(Pool.GENERAL);
        return List.copyOf(pools);
    }

    /** Largest NVLink clique among the pool's GPU nodes the pod's constraints allow (0 if none), from the index. Call under the allocator lock. */
    public int largestClique(Pool pool, NodeConstraints c) { return index.pools().largestClique(pool, c); }

    /** Free disjoint NVLink cliques of {@code size} GPUs on a pool, counted per distinct board state. Call under the allocator lock. */
    public int freeCliques(Pool pool, int size) { return index.pools().freeCliques(pool, size); }

    /** Tells the demand mix what was asked for, so the score follows the real workload. */
    public void observe(PlacementRequest r) {
        if (r.isShare()) config.mix().observeShare(r.milliPerGpu());
        else config.mix().observe(r.gpus());
        if (config.fragmentation() != null) config.fragmentation().observe(r);
    }

    /** Demand-weighted TP capacity still free on a node (for metrics and explanations). */
    public double freeValue(int nodeIndex) {
        NodeInfo n = state.node(nodeIndex);
        if (n == null || n.board() == null) return 0;
        return scorer(n).value(state.freeMask(nodeIndex), config.mix());
    }

    public PlacementResult decide(PlacementRequest r) { return decide(r, null, null); }

    /**
     * As {@link #decide(PlacementRequest)}, keeping off {@code offLimits} (nodes earmarked for waiting replicas,
     * {@link Earmarks}; null = none); a request that fits nowhere else may use them but for {@code stillOff} (the
     * earmarks it may never fall back onto: all of them under {@link Earmarks.Rule#STRICT}, a starving waiter's
     * under {@link Earmarks#starving}; null = none).
     */
    PlacementResult decide(PlacementRequest r, java.util.BitSet offLimits, java.util.BitSet stillOff) {
        boolean clique = r.wantsClique() && anyAllowedBoardHasClique(r);
        PlacementResult.Placed placed = choose(r, clique, offLimits);
        if (placed == null && offLimits != null && !offLimits.equals(stillOff)) placed = choose(r, clique, stillOff);
        if (placed != null) return placed(placed.nodeIndex(), placed.gpuMask(), placed.damage());
        return explain(r, clique);
    }

    private PlacementResult.Placed choose(PlacementRequest r, boolean clique, java.util.BitSet offLimits) {
        if (r.isShare() || r.cpuMilli() > 0 || r.gpuModel() != null) return scan(r, clique, offLimits);
        index.offLimits(offLimits);
        try {
            return index.best(r, clique, config, scratch);
        } finally {
            index.offLimits(null);
        }
    }

    /**
     * A TP request insists on a clique only if some node it may use has one of its size on the
     * board: otherwise (it selects PCIe-only nodes) it gets the best-connected set, as DESIGN says.
     */
    private boolean anyAllowedBoardHasClique(PlacementRequest r) {
        return index.anyBoardWithClique(r);
    }

    static boolean staticallyAllowed(NodeInfo n, PlacementRequest r) {
        return r.pools().contains(n.pool()) && staticallyAllowedIgnoringPool(n, r);
    }

    static boolean staticallyAllowedIgnoringPool(NodeInfo n, PlacementRequest r) {
        if (!r.constraints().selects(n)) return false;
        if (!n.taints().isEmpty() && !r.constraints().toleratesAll(n.taints())) return false;
        return r.gpuModel() == null || r.gpuModel().equals(n.gpuModel());
    }

    /** Linear scan for requests that count CPU, share one GPU or pin a GPU model. */
    private PlacementResult.Placed scan(PlacementRequest r, boolean clique, java.util.BitSet offLimits) {
        DemandMix mix = config.mix();
        int bestNode = -1;
        long bestSet = 0;
        double bestDamage = Double.MAX_VALUE;
        int bestRank = Integer.MAX_VALUE;
        int bestLeft = Integer.MAX_VALUE;
        FragmentationScorer frag = config.fragmentation();
        long memory = frag == null ? 0 : frag.memoryOf(r);
        for (int i = 0; i < state.capacity(); i++) {
            NodeInfo n = state.node(i);
            if (n == null || n.board() == null || !staticallyAllowed(n, r)) continue;
            if (offLimits != null && offLimits.get(i)) continue;
            if (r.cpuMilli() > 0 && n.cpuMilli() > 0 && state.cpuFree(i) < r.cpuMilli()) continue;
            if (state.shortOf(i, r.needs(), true) != null) continue;
            int rank = config.poolPreferenceStrict() ? r.pools().indexOf(n.pool()) : 0;
            BoardScorer s = scorer(n);
            long free = state.freeMask(i);
            long set;
            double damage;
            int left;
            if (r.isShare() && frag != null) {
                set = fragmentationShareGpu(i, n, r, s, free, frag, memory);
                if (set == 0) continue;
                damage = scratch[0];
                left = frag.coarse() ? 0 : state.milliFree(i, Long.numberOfTrailingZeros(set)) - r.milliPerGpu();
            } else if (r.isShare()) {
                int g = bestShareGpu(i, n, r.milliPerGpu());
                if (g < 0) continue;
                set = 1L << g;
                boolean whole = (free & set) != 0;
                damage = whole ? s.value(free, mix) - s.value(free & ~set, mix) : 0;
                left = state.milliFree(i, g) - r.milliPerGpu();
            } else {
                set = s.best(free, r.gpus(), clique, mix, scratch);
                if (set == 0) continue;
                damage = scratch[0];
                if (frag != null) damage = damage * frag.tpWeight() + frag.cost(frag.delta(state, i, set, 1000, r.cpuMilli(), memory));
                left = frag != null && frag.coarse() ? 0 : Long.bitCount(free) - r.gpus();
            }
            // nodes are visited in index order, so only a strictly better candidate replaces the best
            if (NodeIndex.compare(rank, damage, left, bestRank, bestDamage, bestLeft) < 0) {
                bestNode = i; bestSet = set; bestDamage = damage; bestRank = rank; bestLeft = left;
            }
        }
        return bestNode < 0 ? null : placed(bestNode, bestSet, bestDamage);
    }

    /**
     * With fragmentation scoring: every GPU that fits is a candidate; damage = the NVLink capacity a
     * wholly free GPU's breaking destroys beyond the GPU itself (weighed first, as every TP damage),
     * then the fragmentation added, as FGD scores it ({@link FragmentationScorer.ShareOnWholeGpu}).
     * Left in {@code scratch[0]}; 0 when none fits.
     */
    private long fragmentationShareGpu(int i, NodeInfo n, PlacementRequest r, BoardScorer s, long free, FragmentationScorer frag, long memory) {
        long best = 0;
        double bestDamage = Double.MAX_VALUE;
        double wholeFrag = Double.NaN;
        for (int g = 0; g < n.gpuCount(); g++) {
            int f = state.milliFree(i, g);
            if (f < r.milliPerGpu() || (f < 1000 && sameFreeEarlier(i, g, f))) continue; // equal shared GPUs score alike
            long bit = 1L << g;
            double d;
            if ((free & bit) != 0) {
                // every whole GPU leaves the same fragmentation; only the TP capacity it breaks differs
                if (Double.isNaN(wholeFrag)) wholeFrag = frag.delta(state, i, bit, r.milliPerGpu(), r.cpuMilli(), memory);
                double loss = s.value(free, config.mix()) - s.value(free & ~bit, config.mix());
                double single = s.singleGpuLoss(free, bit, config.mix());
                double singleCost = frag.shareOnWholeGpu() == FragmentationScorer.ShareOnWholeGpu.SINGLE_GPU_COST
                        ? single * FragmentationScorer.TP_PER_GPU : 0;
                d = (loss - single) * frag.tpWeight() + frag.cost(singleCost + wholeFrag);
            } else {
                d = frag.cost(frag.delta(state, i, bit, r.milliPerGpu(), r.cpuMilli(), memory));
            }
            if (best == 0 || d < bestDamage - 1e-9 || (Math.abs(d - bestDamage) <= 1e-9 && f < state.milliFree(i, Long.numberOfTrailingZeros(best)))) {
                best = bit;
                bestDamage = d;
            }
        }
        scratch[0] = bestDamage;
        return best;
    }

    private boolean sameFreeEarlier(int node, int g, int f) {
        for (int h = 0; h < g; h++) if (state.milliFree(node, h) == f) return true;
        return false;
    }

    /** Best fit among GPUs already shared, else a whole free GPU chosen by damage. */
    private int bestShareGpu(int i, NodeInfo n, int milli) {
        int best = -1;
        int bestLeft = Integer.MAX_VALUE;
        for (int g = 0; g < n.gpuCount(); g++) {
            int free = state.milliFree(i, g);
            if (free < milli || free == 1000) continue;
            if (free - milli < bestLeft) { best = g; bestLeft = free - milli; }
        }
        if (best >= 0) return best;
        long set = scorer(n).best(state.freeMask(i), 1, false, config.mix(), scratch);
        return set == 0 ? -1 : Long.numberOfTrailingZeros(set);
    }

    PlacementResult.Placed placed(int node, long set, double damage) {
        NodeInfo n = state.node(node);
        GpuBoard b = n.board();
        boolean full = b.isClique(set);
        String domain = null;
        List<Long> domains = b.nvlinkDomains();
        for (int d = 0; d < domains.size(); d++) {
            if ((domains.get(d) & set) == set) {
                domain = "nvl" + d;
                break;
            }
        }
        return new PlacementResult.Placed(n.name(), node, set, full, domain, damage);
    }

    /** Taken only when nothing fits: the first failing filter of every node, counted per index group. */
    private PlacementResult.Unschedulable explain(PlacementRequest r, boolean clique) {
        return IndexReasons.explain(state, index, r, clique);
    }
}
