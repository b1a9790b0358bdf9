package dev.ace.binpacker.placement;

import java.util.List;

/**
 * What admission asks about a pool before calling the packer (may the pod use it at all, which
 * NVLink domain size it has, how many free 8-cliques are left), answered per index group and
 * free-mask slot, never by listing the pool's nodes: at 12,500 nodes that list cost 125 µs on
 * every TP admission (issue 10). Call under the allocator lock.
 */
final class PoolQueries {
    private final List<IndexGroup> groups;
    private final ConstraintMatches matches;

    PoolQueries(List<IndexGroup> groups, ConstraintMatches matches) {
        this.groups = groups;
        this.matches = matches;
    }

    /** True if some GPU node of {@code pool} (any pool when null) is allowed by the pod's constraints. */
    boolean anyAllowed(Pool pool, NodeConstraints c, boolean checkTaints) {
        ConstraintMatches.Match m = c.isEmpty() ? null : matches.of(c);
        for (IndexGroup g : groups) {
            if (g.scorer != null && (pool == null || g.pool == pool) && admits(g, m, checkTaints)) return true;
        }
        return false;
    }

    /** True if some node of {@code pool} that the pod's constraints allow has an NVLink clique of {@code size} GPUs on its board. */
    boolean anyCliqueBoard(Pool pool, int size, NodeConstraints c) {
        ConstraintMatches.Match m = c.isEmpty() ? null : matches.of(c);
        for (IndexGroup g : groups) {
            if (g.scorer != null && g.pool == pool && g.board().largestClique() >= size && admits(g, m, true)) return true;
        }
        return false;
    }

    /** The largest NVLink clique on the boards of the pool's GPU nodes the pod's constraints allow, or 0 when none is allowed. */
    int largestClique(Pool pool, NodeConstraints c) {
        ConstraintMatches.Match m = c.isEmpty() ? null : matches.of(c);
        int largest = 0;
        for (IndexGroup g : groups) {
            if (g.scorer == null || g.pool != pool || g.board().largestClique() <= largest) continue;
            if (admits(g, m, true)) largest = g.board().largestClique();
        }
        return largest;
    }

    /** Free disjoint NVLink cliques of {@code size} GPUs over the pool's nodes, one count per distinct board state. */
    int freeCliques(Pool pool, int size) {
        int count = 0;
        for (IndexGroup g : groups) {
            if (g.scorer == null || g.pool != pool) continue;
            for (int slot = 0; slot < g.slots; slot++) {
                count += PoolStats.freeCliques(g.board(), g.masks[slot], size) * g.nodes[slot].cardinality();
            }
        }
        return count;
    }

    /**
     * Some member of the group is selected by the pod (and, with {@code checkTaints}, tolerated). No
     * constraints ({@code m} null) means no tolerations either: a tainted group repels the pod.
     */
    private static boolean admits(IndexGroup g, ConstraintMatches.Match m, boolean checkTaints) {
        if (m == null) return !checkTaints || !g.tainted;
        return checkTaints ? NodeIndex.nextCommon(g.all, m.selected(), m.tolerated(), 0) >= 0 : g.all.intersects(m.selected());
    }
}
