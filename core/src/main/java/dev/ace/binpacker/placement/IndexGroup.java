package dev.ace.binpacker.placement;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/** {@link NodeIndex}: the nodes of one (pool, board, tainted) kind, bucketed by free mask in flat arrays (no iterator on the hot path). */
final class IndexGroup {
    final Pool pool;
    /** Null for nodes without GPUs. */
    final BoardScorer scorer;
    /** Members have a NoSchedule/NoExecute taint: every pod must be checked against them. */
    final boolean tainted;
    final Map<Long, Integer> slotOf = new HashMap<>();
    long[] masks = new long[8];
    BitSet[] nodes = new BitSet[8];
    /** Members per slot: a BitSet's cardinality reads every word up to its highest node. */
    int[] counts = new int[8];
    /** The slot of each member, by node index (stale for non-members). */
    int[] slotOfNode = new int[16];
    /** Every member, whatever its free mask. */
    final BitSet all = new BitSet();
    /**
     * Slot of each free mask, -1 when no member has it: kept for boards of up to
     * {@value #ORDERED_LIMIT} GPUs, whose masks the index walks in damage order.
     */
    final int[] slotOfMask;
    int slots;
    int members;
    /** Members with a GPU shared between pods, and members whose CPU is counted: the fragmentation table does not describe them. */
    int sharedGpuNodes;
    int cpuTrackedNodes;

    /** Boards up to this many GPUs (256 free masks) get their masks walked in damage order. */
    static final int ORDERED_LIMIT = 8;

    IndexGroup(Pool pool, BoardScorer scorer, boolean tainted) {
        this.pool = pool;
        this.scorer = scorer;
        this.tainted = tainted;
        int n = scorer == null ? 0 : scorer.board().gpuCount();
        this.slotOfMask = n == 0 || n > ORDERED_LIMIT ? null : new int[1 << n];
        if (slotOfMask != null) Arrays.fill(slotOfMask, -1);
    }

    GpuBoard board() { return scorer == null ? null : scorer.board(); }

    /**
     * The index's score of each free mask for one (size, clique?) request kind: the board's best set
     * and its total damage (TP damage, plus the group's fragmentation for that free count when
     * scored), filled as masks are met and dropped when the demand mix or the fragmentation table
     * changes. A slot then costs two array reads, which is what keeps 256 free-mask states of a
     * fragmented 12,500-node fleet within a few microseconds.
     */
    static final class Scores {
        final long mixVersion;
        final double[] fragTable;
        final long[] set;
        final double[] total;
        final boolean[] known;
        /** Every free mask that has a set for this kind, by increasing total damage; null until first needed. */
        int[] order;

        Scores(long mixVersion, double[] fragTable, int masks) {
            this.mixVersion = mixVersion;
            this.fragTable = fragTable;
            this.set = new long[masks];
            this.total = new double[masks];
            this.known = new boolean[masks];
        }
    }

    private final Scores[][] scores = new Scores[2][];

    /** Null for boards above the enumeration limit (no per-mask tables). */
    Scores scores(int k, boolean clique, DemandMix mix, double[] fragTable) {
        int n = board().gpuCount();
        if (n > GpuBoard.ENUMERATION_LIMIT) return null;
        Scores[] byK = scores[clique ? 1 : 0];
        if (byK == null) byK = scores[clique ? 1 : 0] = new Scores[n + 1];
        Scores s = byK[k];
        if (s == null || s.mixVersion != mix.version() || s.fragTable != fragTable) {
            s = new Scores(mix.version(), fragTable, 1 << n);
            byK[k] = s;
        }
        return s;
    }

    void add(long mask, int node) {
        Integer slot = slotOf.get(mask);
        if (slot == null) {
            if (slots == masks.length) {
                masks = Arrays.copyOf(masks, slots * 2);
                nodes = Arrays.copyOf(nodes, slots * 2);
                counts = Arrays.copyOf(counts, slots * 2);
            }
            slot = slots++;
            masks[slot] = mask;
            nodes[slot] = new BitSet();
            counts[slot] = 0;
            slotOf.put(mask, slot);
            if (slotOfMask != null) slotOfMask[(int) mask] = slot;
        }
        nodes[slot].set(node);
        counts[slot]++;
        if (node >= slotOfNode.length) slotOfNode = Arrays.copyOf(slotOfNode, Math.max(node + 1, slotOfNode.length * 2));
        slotOfNode[node] = slot;
        all.set(node);
        members++;
    }

    void remove(long mask, int node) {
        int slot = slotOf.get(mask);
        nodes[slot].clear(node);
        all.clear(node);
        members--;
        if (--counts[slot] > 0) return;
        int last = --slots;
        slotOf.remove(mask);
        if (slotOfMask != null) slotOfMask[(int) mask] = -1;
        if (slot != last) {
            masks[slot] = masks[last];
            nodes[slot] = nodes[last];
            counts[slot] = counts[last];
            slotOf.put(masks[slot], slot);
            if (slotOfMask != null) slotOfMask[(int) masks[slot]] = slot;
            for (int i = nodes[slot].nextSetBit(0); i >= 0; i = nodes[slot].nextSetBit(i + 1)) slotOfNode[i] = slot;
        }
        nodes[last] = null;
    }
}
