package dev.ace.binpacker.placement;

import java.util.BitSet;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * FGD's term per index group, when it can be: if every node of a group admits the same learned
 * shapes (no shape's selector splits the group, no shape needs CPU the nodes count, no GPU is
 * shared), the fragmentation that taking {@code k} whole GPUs adds depends only on how many are
 * free, so the index reads it from a table per (group, k) and keeps pruning slots before touching
 * a node. Tables are rebuilt when the learned target or the node set changes. Groups that do not
 * qualify are scored node by node ({@link FragmentationScorer#wholeDelta}).
 */
final class GroupFragmentation {
    private record Entry(long target, long membership, boolean[] admitted, double[][] byK) {}

    private final ClusterState state;
    private final ConstraintMatches matches;
    private final Map<IndexGroup, Entry> byGroup = new IdentityHashMap<>();

    GroupFragmentation(ClusterState state, ConstraintMatches matches) {
        this.state = state;
        this.matches = matches;
    }

    /** The table over free counts of the {@link FragmentationScorer#cost} of taking {@code k} GPUs on any node of {@code g}, or null when its nodes differ. */
    double[] table(IndexGroup g, int k, FragmentationScorer f) {
        if (g.sharedGpuNodes > 0) return null;
        Entry e = byGroup.get(g);
        if (e == null || e.target() != f.version() || e.membership() != state.membershipVersion()) {
            e = new Entry(f.version(), state.membershipVersion(), admitted(g, f), new double[g.board().gpuCount() + 1][]);
            byGroup.put(g, e);
        }
        if (e.admitted() == null) return null;
        if (e.byK()[k] == null) {
            double[] t = f.wholeDeltas(e.admitted(), k, g.board().gpuCount());
            for (int i = 0; i < t.length; i++) t[i] = f.cost(t[i]);
            e.byK()[k] = t;
        }
        return e.byK()[k];
    }

    void forget(IndexGroup g) { byGroup.remove(g); }

    /** Which shapes every member admits; null when some shape is admitted by some members only. */
    private boolean[] admitted(IndexGroup g, FragmentationScorer f) {
        boolean[] out = new boolean[f.targetSize()];
        for (int s = 0; s < out.length; s++) {
            if (f.shapeModel(s) != null || (f.shapeCpu(s) > 0 && g.cpuTrackedNodes > 0)) return null;
            NodeConstraints c = f.shapeConstraints(s);
            if (c.isEmpty()) {
                out[s] = !g.tainted;
                continue;
            }
            ConstraintMatches.Match m = matches.of(c);
            BitSet in = (BitSet) g.all.clone();
            in.and(m.selected());
            in.and(m.tolerated());
            int admittedBy = in.cardinality();
            if (admittedBy != 0 && admittedBy != g.members) return null;
            out[s] = admittedBy == g.members;
        }
        return out;
    }
}
