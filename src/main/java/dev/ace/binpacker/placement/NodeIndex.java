package dev.ace.binpacker.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Nodes grouped by (pool, board scorer: the board, narrowed by a NUMA-aligning Topology Manager policy) and, inside a group, by free mask. Two nodes of the same board
 * and free mask score the same for any whole-GPU request, so the packer scores each distinct
 * state once: on a 12,500-node fleet of a few board types that is a few hundred lookups.
 * Kept current by {@link ClusterState.Listener} callbacks.
 */
final class NodeIndex implements ClusterState.Listener {
    /** Nodes of one (pool, board, tainted) kind, bucketed by free mask in flat arrays (no iterator on the hot path). */
    private static final class Group {
        final Pool pool;
        final BoardScorer scorer;
        /** Members have a NoSchedule/NoExecute taint: every pod must be checked against them. */
        final boolean tainted;
        final Map<Long, Integer> slotOf = new HashMap<>();
        long[] masks = new long[8];
        BitSet[] nodes = new BitSet[8];
        int slots;
        int members;

        Group(Pool pool, BoardScorer scorer, boolean tainted) {
            this.pool = pool;
            this.scorer = scorer;
            this.tainted = tainted;
        }

        void add(long mask, int node) {
            Integer slot = slotOf.get(mask);
            if (slot == null) {
                if (slots == masks.length) {
                    masks = Arrays.copyOf(masks, slots * 2);
                    nodes = Arrays.copyOf(nodes, slots * 2);
                }
                slot = slots++;
                masks[slot] = mask;
                nodes[slot] = new BitSet();
                slotOf.put(mask, slot);
            }
            nodes[slot].set(node);
            members++;
        }

        void remove(long mask, int node) {
            int slot = slotOf.get(mask);
            nodes[slot].clear(node);
            members--;
            if (!nodes[slot].isEmpty()) return;
            int last = --slots;
            slotOf.remove(mask);
            if (slot != last) {
                masks[slot] = masks[last];
                nodes[slot] = nodes[last];
                slotOf.put(masks[slot], slot);
            }
            nodes[last] = null;
        }
    }

    private final ClusterState state;
    private final Function<NodeInfo, BoardScorer> scorers;
    private final List<Group> groups = new ArrayList<>();
    private Group[] groupOf = new Group[16];
    private long[] maskOf = new long[16];

    NodeIndex(ClusterState state, Function<NodeInfo, BoardScorer> scorers) {
        this.state = state;
        this.scorers = scorers;
        for (int i = 0; i < state.capacity(); i++) nodeChanged(i, 0, state.freeMask(i));
        state.addListener(this);
    }

    @Override
    public void nodeChanged(int i, long oldFree, long newFree) {
        if (i >= groupOf.length) {
            int n = Math.max(i + 1, groupOf.length * 2);
            groupOf = Arrays.copyOf(groupOf, n);
            maskOf = Arrays.copyOf(maskOf, n);
        }
        Group old = groupOf[i];
        if (old != null) {
            old.remove(maskOf[i], i);
            groupOf[i] = null;
        }
        NodeInfo n = state.node(i);
        if (n == null || n.board() == null) return;
        Group g = groupFor(n.pool(), scorers.apply(n), n.taints().stream().anyMatch(Taint::repels));
        g.add(newFree, i);
        groupOf[i] = g;
        maskOf[i] = newFree;
    }

    private Group groupFor(Pool pool, BoardScorer scorer, boolean tainted) {
        for (Group g : groups) if (g.pool == pool && g.scorer == scorer && g.tainted == tainted) return g;
        Group g = new Group(pool, scorer, tainted);
        groups.add(g);
        return g;
    }

    /** True if some node the request may use has an NVLink clique of its size on its board (free or not). */
    boolean anyBoardWithClique(PlacementRequest r) {
        boolean unconstrained = r.constraints().isEmpty() && r.gpuModel() == null;
        for (Group g : groups) {
            if (g.members == 0 || !r.pools().contains(g.pool) || g.scorer.board().largestClique() < r.gpus()) continue;
            if (unconstrained && !g.tainted) return true;
            for (int slot = 0; slot < g.slots; slot++) {
                if (firstAllowed(g.nodes[slot], r, false) >= 0) return true;
            }
        }
        return false;
    }

    PlacementResult.Placed best(PlacementRequest r, boolean clique, PackerConfig config, double[] scratch) {
        DemandMix mix = config.mix();
        int k = r.gpus();
        boolean unconstrained = r.constraints().isEmpty();
        int bestNode = -1;
        long bestSet = 0;
        double bestDamage = Double.MAX_VALUE;
        int bestRank = Integer.MAX_VALUE;
        int bestLeft = Integer.MAX_VALUE;
        for (Group g : groups) {
            if (g.members == 0) continue;
            int rank = r.pools().indexOf(g.pool);
            if (rank < 0) continue;
            if (!config.poolPreferenceStrict()) rank = 0;
            if (rank > bestRank || g.scorer.board().gpuCount() < k) continue;
            if (clique && g.scorer.board().largestClique() < k) continue;
            for (int slot = 0; slot < g.slots; slot++) {
                long free = g.masks[slot];
                if (Long.bitCount(free) < k) continue;
                long set = g.scorer.best(free, k, clique, mix, scratch);
                if (set == 0) continue;
                double damage = scratch[0];
                int left = Long.bitCount(free) - k;
                int cmp = compare(rank, damage, left, bestRank, bestDamage, bestLeft);
                if (cmp > 0) continue;
                int node = firstAllowed(g.nodes[slot], r, unconstrained && !g.tainted);
                if (node < 0) continue;
                if (cmp == 0 && node > bestNode) continue;
                bestNode = node; bestSet = set; bestDamage = damage; bestRank = rank; bestLeft = left;
            }
        }
        if (bestNode < 0) return null;
        return new PlacementResult.Placed(state.node(bestNode).name(), bestNode, bestSet, false, null, bestDamage);
    }

    /** The packer's order of candidates: pool preference, then damage, then the fuller node. Shared with {@link Packer}'s scan. */
    static int compare(int rank, double damage, int left, int bRank, double bDamage, int bLeft) {
        if (rank != bRank) return rank < bRank ? -1 : 1;
        if (damage < bDamage - 1e-9) return -1;
        if (damage > bDamage + 1e-9) return 1;
        return Integer.compare(left, bLeft);
    }

    private int firstAllowed(BitSet nodes, PlacementRequest r, boolean open) {
        if (open) return nodes.nextSetBit(0);
        for (int i = nodes.nextSetBit(0); i >= 0; i = nodes.nextSetBit(i + 1)) {
            if (Packer.staticallyAllowed(state.node(i), r)) return i;
        }
        return -1;
    }
}
