package dev.ace.binpacker.placement;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every live node, grouped by (pool, board, tainted, Topology Manager policy when it narrows the
 * GPU sets) and, inside a group, by free mask. Two nodes
 * of the same board and free mask score the same for any whole-GPU request, so the packer scores
 * each distinct state once: on a 12,500-node fleet of a few board types that is a few hundred
 * lookups. Boards are identities ({@link dev.ace.binpacker.topology.BoardInterner}), so equal
 * machines share a group and a {@link BoardScorer}; a group that loses its last node is dropped
 * with its scorer. Nodes without GPUs have a group too (no scorer), so the reasons of an
 * unschedulable decision are counted per group ({@link IndexReasons}), not per node.
 * Kept current by {@link ClusterState.Listener} callbacks.
 */
final class NodeIndex implements ClusterState.Listener {
    private record GroupKey(Pool pool, GpuBoard board, boolean tainted, TopologyManagerPolicy policy) {}

    private final ClusterState state;
    private final List<IndexGroup> groups = new ArrayList<>();
    private final Map<GroupKey, IndexGroup> byKey = new HashMap<>();
    private final IdentityHashMap<GpuBoard, BoardScorer> scorers = new IdentityHashMap<>();
    /** Scorers of nodes whose Topology Manager policy narrows the GPU sets (few nodes, built on first use). */
    private final Map<TopologyManagerPolicy, IdentityHashMap<GpuBoard, BoardScorer>> alignedScorers =
            new java.util.EnumMap<>(TopologyManagerPolicy.class);
    private final ConstraintMatches matches;
    private final GroupFragmentation fragmentation;
    private final PoolQueries pools;
    private IndexGroup[] groupOf = new IndexGroup[16];
    private long[] maskOf = new long[16];
    private NodeInfo[] infoOf = new NodeInfo[16];
    private boolean[] sharedOf = new boolean[16];
    /** Nodes earmarked for older waiters during one decision ({@link Earmarks}); null = none. */
    private BitSet offLimits;

    NodeIndex(ClusterState state) {
        this.state = state;
        this.matches = new ConstraintMatches(state);
        this.fragmentation = new GroupFragmentation(state, matches);
        this.pools = new PoolQueries(groups, matches);
        for (int i = 0; i < state.capacity(); i++) nodeChanged(i, 0, state.freeMask(i));
        state.addListener(this);
    }

    List<IndexGroup> groups() { return groups; }

    /** Nodes {@link #best} must skip for the decision under way (earmarks of waiting replicas); null = none. */
    void offLimits(BitSet nodes) { this.offLimits = nodes; }

    /** The scorer of a board some live node has (created on first use). */
    BoardScorer scorer(GpuBoard board) { return scorers.computeIfAbsent(board, BoardScorer::new); }

    /** The scorer of a board under a kubelet Topology Manager policy: the board's own unless the policy aligns NUMA. */
    BoardScorer scorer(GpuBoard board, TopologyManagerPolicy policy) {
        if (!policy.constrains()) return scorer(board);
        return alignedScorers.computeIfAbsent(policy, x -> new IdentityHashMap<>()).computeIfAbsent(board, b -> new BoardScorer(b, policy));
    }

    private static TopologyManagerPolicy narrowing(NodeInfo n) {
        return n.topologyPolicy().constrains() ? n.topologyPolicy() : TopologyManagerPolicy.NONE;
    }

    @Override
    public void nodeChanged(int i, long oldFree, long newFree) {
        if (i >= groupOf.length) {
            int n = Math.max(i + 1, groupOf.length * 2);
            groupOf = Arrays.copyOf(groupOf, n);
            maskOf = Arrays.copyOf(maskOf, n);
            infoOf = Arrays.copyOf(infoOf, n);
            sharedOf = Arrays.copyOf(sharedOf, n);
        }
        NodeInfo n = state.node(i);
        IndexGroup g = groupOf[i];
        if (g != null && n == infoOf[i]) {
            // capacity moved on a known node: same group, another slot (the hot path of every reserve and release)
            g.remove(maskOf[i], i);
            g.add(newFree, i);
            maskOf[i] = newFree;
            boolean shared = !state.wholeGpusOnly(i);
            if (shared != sharedOf[i]) g.sharedGpuNodes += shared ? 1 : -1;
            sharedOf[i] = shared;
            return;
        }
        if (g != null) {
            g.remove(maskOf[i], i);
            if (sharedOf[i]) g.sharedGpuNodes--;
            if (infoOf[i].cpuMilli() > 0) g.cpuTrackedNodes--;
            if (g.members == 0) drop(g);
            groupOf[i] = null;
        }
        infoOf[i] = n;
        matches.nodeChanged(i);
        if (n == null) return;
        g = groupFor(n);
        g.add(newFree, i);
        sharedOf[i] = !state.wholeGpusOnly(i);
        if (sharedOf[i]) g.sharedGpuNodes++;
        if (n.cpuMilli() > 0) g.cpuTrackedNodes++;
        groupOf[i] = g;
        maskOf[i] = newFree;
    }

    private IndexGroup groupFor(NodeInfo n) {
        boolean tainted = false;
        for (Taint t : n.taints()) tainted |= t.repels();
        TopologyManagerPolicy policy = narrowing(n);
        GroupKey key = new GroupKey(n.pool(), n.board(), tainted, policy);
        IndexGroup g = byKey.get(key);
        if (g == null) {
            g = new IndexGroup(n.pool(), n.board() == null ? null : scorer(n.board(), policy), tainted);
            byKey.put(key, g);
            groups.add(g);
        }
        return g;
    }

    private void drop(IndexGroup g) {
        groups.remove(g);
        fragmentation.forget(g);
        TopologyManagerPolicy policy = g.scorer == null ? TopologyManagerPolicy.NONE : g.scorer.policy();
        byKey.remove(new GroupKey(g.pool, g.board(), g.tainted, policy));
        if (g.scorer != null && groups.stream().noneMatch(o -> o.scorer == g.scorer)) {
            if (policy.constrains()) alignedScorers.get(policy).remove(g.board());
            else scorers.remove(g.board());
        }
    }

    /** Live groups and cached board scorers, for tests that check nothing leaks. */
    int groupCount() { return groups.size(); }

    int scorerCount() {
        int aligned = 0;
        for (IdentityHashMap<GpuBoard, BoardScorer> m : alignedScorers.values()) aligned += m.size();
        return scorers.size() + aligned;
    }

    ConstraintMatches.Match matches(NodeConstraints c) { return matches.of(c); }

    /** Pool questions of admission, answered from these groups. */
    PoolQueries pools() { return pools; }

    /** True if some node the request may use has an NVLink clique of its size on its board (free or not). */
    boolean anyBoardWithClique(PlacementRequest r) {
        for (IndexGroup g : groups) {
            if (g.scorer == null || !r.pools().contains(g.pool) || g.board().largestClique() < r.gpus()) continue;
            for (int slot = 0; slot < g.slots; slot++) {
                if (firstAllowed(g, slot, r, false) >= 0) return true;
            }
        }
        return false;
    }

    /**
     * The best node and GPU set for a whole-GPU request that takes no CPU: per slot, the board's
     * memoised best set and TP damage; with fragmentation scoring, plus the fragmentation the
     * slot's nodes would gain, TP damage weighed by {@link FragmentationScorer#tpWeight()} as in the scan: from the group's
     * table when all its nodes admit the same learned shapes ({@link GroupFragmentation}), else for
     * the slot's first allowed node. Nodes of one slot share board and free mask; among them the
     * lowest index is taken.
     */
    PlacementResult.Placed best(PlacementRequest r, boolean clique, PackerConfig config, double[] scratch) {
        DemandMix mix = config.mix();
        FragmentationScorer frag = config.fragmentation() == null || config.fragmentation().targetSize() == 0 ? null : config.fragmentation();
        int k = r.gpus();
        boolean indexTies = frag != null && frag.coarse();
        int bestNode = -1;
        long bestSet = 0;
        double bestDamage = Double.MAX_VALUE;
        int bestRank = Integer.MAX_VALUE;
        int bestLeft = Integer.MAX_VALUE;
        for (IndexGroup g : groups) {
            if (g.scorer == null) continue;
            int rank = r.pools().indexOf(g.pool);
            if (rank < 0) continue;
            if (!config.poolPreferenceStrict()) rank = 0;
            if (rank > bestRank || g.board().gpuCount() < k) continue;
            if (clique && g.board().largestClique() < k) continue;
            double[] table = frag == null ? null : fragmentation.table(g, k, frag);
            IndexGroup.Scores sc = frag == null || table != null ? g.scores(k, clique, mix, table) : null;
            if (sc != null && g.slotOfMask != null) {
                // masks by increasing damage: the first present one with an allowed node wins, ties aside
                int[] order = sc.order != null ? sc.order : order(g, sc, k, clique, mix, table, frag, scratch);
                for (int m : order) {
                    int slot = g.slotOfMask[m];
                    if (slot < 0) continue;
                    double damage = sc.total[m];
                    if (rank == bestRank && damage > bestDamage + 1e-9) break;
                    int left = indexTies ? 0 : Integer.bitCount(m) - k;
                    int cmp = compare(rank, damage, left, bestRank, bestDamage, bestLeft);
                    if (cmp > 0) continue;
                    int node = firstAllowed(g, slot, r);
                    if (node < 0 || (cmp == 0 && node > bestNode)) continue;
                    bestNode = node; bestSet = sc.set[m]; bestDamage = damage; bestRank = rank; bestLeft = left;
                }
                continue;
            }
            if (sc != null) {
                for (int slot = 0; slot < g.slots; slot++) {
                    long free = g.masks[slot];
                    int freeCount = Long.bitCount(free);
                    if (freeCount < k) continue;
                    int m = (int) free;
                    if (!sc.known[m]) {
                        long set = g.scorer.best(free, k, clique, mix, scratch);
                        sc.set[m] = set;
                        sc.total[m] = table == null ? scratch[0] : scratch[0] * frag.tpWeight() + table[freeCount];
                        sc.known[m] = true;
                    }
                    if (sc.set[m] == 0) continue;
                    double damage = sc.total[m];
                    int left = indexTies ? 0 : freeCount - k;
                    int cmp = compare(rank, damage, left, bestRank, bestDamage, bestLeft);
                    if (cmp > 0) continue;
                    int node = firstAllowed(g, slot, r);
                    if (node < 0 || (cmp == 0 && node > bestNode)) continue;
                    bestNode = node; bestSet = sc.set[m]; bestDamage = damage; bestRank = rank; bestLeft = left;
                }
                continue;
            }
            for (int slot = 0; slot < g.slots; slot++) {
                long free = g.masks[slot];
                int freeCount = Long.bitCount(free);
                if (freeCount < k) continue;
                long set = g.scorer.best(free, k, clique, mix, scratch);
                if (set == 0) continue;
                double damage = scratch[0];
                int left = indexTies ? 0 : freeCount - k;
                int node = -1;
                if (table != null) {
                    damage = damage * frag.tpWeight() + table[freeCount];
                } else if (frag != null) {
                    // taking k whole GPUs lowers fragmentation by at most 1000 k milli: past that bound no node of the slot can win
                    if (rank == bestRank && damage * frag.tpWeight() + frag.lowestCost(k) > bestDamage + 1e-9) continue;
                    node = firstAllowed(g, slot, r);
                    if (node < 0) continue;
                    damage = damage * frag.tpWeight() + frag.cost(state.wholeGpusOnly(node)
                            ? frag.wholeDelta(state, node, freeCount, k)
                            : frag.delta(state, node, set, 1000, 0));
                }
                int cmp = compare(rank, damage, left, bestRank, bestDamage, bestLeft);
                if (cmp > 0) continue;
                if (node < 0) node = firstAllowed(g, slot, r);
                if (node < 0) continue;
                if (cmp == 0 && node > bestNode) continue;
                bestNode = node; bestSet = set; bestDamage = damage; bestRank = rank; bestLeft = left;
            }
        }
        if (bestNode < 0) return null;
        return new PlacementResult.Placed(state.node(bestNode).name(), bestNode, bestSet, false, null, bestDamage);
    }

    /**
     * Every free mask of the group's board that can take the request, by increasing total damage
     * (256 masks at most): built once per demand mix and fragmentation table, then a decision on a
     * fragmented fleet stops at the first mask some allowed node has, instead of reading every slot.
     */
    private static int[] order(IndexGroup g, IndexGroup.Scores sc, int k, boolean clique, DemandMix mix, double[] table,
                               FragmentationScorer frag, double[] scratch) {
        int masks = 1 << g.board().gpuCount();
        java.util.List<Integer> feasible = new ArrayList<>();
        for (int m = 0; m < masks; m++) {
            if (Integer.bitCount(m) < k) continue;
            if (!sc.known[m]) {
                long set = g.scorer.best(m, k, clique, mix, scratch);
                sc.set[m] = set;
                sc.total[m] = table == null ? scratch[0] : scratch[0] * frag.tpWeight() + table[Integer.bitCount(m)];
                sc.known[m] = true;
            }
            if (sc.set[m] != 0) feasible.add(m);
        }
        feasible.sort((a, b) -> Double.compare(sc.total[a], sc.total[b]));
        sc.order = feasible.stream().mapToInt(Integer::intValue).toArray();
        return sc.order;
    }

    /** The packer's order of candidates: pool preference, then damage, then the fuller node. Shared with {@link Packer}'s scan. */
    static int compare(int rank, double damage, int left, int bRank, double bDamage, int bLeft) {
        if (rank != bRank) return rank < bRank ? -1 : 1;
        if (damage < bDamage - 1e-9) return -1;
        if (damage > bDamage + 1e-9) return 1;
        return Integer.compare(left, bLeft);
    }

    /**
     * Lowest node of a slot the request's own constraints allow and whose other resources hold what it
     * requests besides GPUs (kube-scheduler's NodeResourcesFit; {@link ClusterState#shortOf}), or -1.
     */
    private int firstAllowed(IndexGroup g, int slot, PlacementRequest r) { return firstAllowed(g, slot, r, true); }

    /** As {@link #firstAllowed(IndexGroup, int, PlacementRequest)}; with {@code checkFit == false} the pod's own constraints only. */
    private int firstAllowed(IndexGroup g, int slot, PlacementRequest r, boolean checkFit) {
        BitSet nodes = g.nodes[slot];
        if (checkFit && offLimits != null && nodes.intersects(offLimits)) {
            nodes = (BitSet) nodes.clone();
            nodes.andNot(offLimits);
        }
        boolean fit = checkFit && !r.needs().isEmpty() && state.resourceTrackedNodes() > 0;
        if (r.gpuModel() != null) {
            for (int i = nodes.nextSetBit(0); i >= 0; i = nodes.nextSetBit(i + 1)) {
                if (Packer.staticallyAllowed(state.node(i), r) && (!fit || state.shortOf(i, r.needs(), true) == null)) return i;
            }
            return -1;
        }
        if (r.constraints().isEmpty()) {
            if (g.tainted) return -1;
            for (int i = nodes.nextSetBit(0); i >= 0; i = nodes.nextSetBit(i + 1)) {
                if (!fit || state.shortOf(i, r.needs(), true) == null) return i;
            }
            return -1;
        }
        ConstraintMatches.Match m = matches.of(r.constraints());
        for (int i = nextCommon(nodes, m.selected(), m.tolerated(), 0); i >= 0; i = nextCommon(nodes, m.selected(), m.tolerated(), i + 1)) {
            if (!fit || state.shortOf(i, r.needs(), true) == null) return i;
        }
        return -1;
    }

    /** Smallest index >= from set in all three bitsets, or -1 (leapfrogging, no allocation). */
    static int nextCommon(BitSet a, BitSet b, BitSet c, int from) {
        int i = a.nextSetBit(from);
        while (i >= 0) {
            if (!b.get(i)) {
                i = b.nextSetBit(i);
            } else if (!c.get(i)) {
                i = c.nextSetBit(i);
            } else {
                return i;
            }
            if (i < 0) return -1;
            i = a.nextSetBit(i);
        }
        return -1;
    }
}
