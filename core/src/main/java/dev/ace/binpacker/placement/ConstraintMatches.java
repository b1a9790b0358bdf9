package dev.ace.binpacker.placement;

import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which nodes a pod's own nodeSelector, affinity and tolerations allow, remembered per distinct
 * constraints and kept current node by node as nodes are added, changed or removed. Pods of one
 * workload carry the same constraints, so a decision for a constrained pod reads two bitsets
 * instead of matching 12,500 label maps under the allocator lock.
 */
final class ConstraintMatches {
    /** Distinct constraint sets remembered; beyond that the least recently used is recomputed on demand. */
    static final int CAPACITY = 64;

    /** Nodes whose labels the constraints select, and nodes whose repelling taints they all tolerate. */
    record Match(BitSet selected, BitSet tolerated) {}

    private final ClusterState state;
    private final Map<NodeConstraints, Match> cache = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<NodeConstraints, Match> eldest) { return size() > CAPACITY; }
    };

    ConstraintMatches(ClusterState state) { this.state = state; }

    Match of(NodeConstraints c) {
        Match m = cache.get(c);
        if (m != null) return m;
        m = new Match(new BitSet(state.capacity()), new BitSet(state.capacity()));
        for (int i = 0; i < state.capacity(); i++) set(m, c, i, state.node(i));
        cache.put(c, m);
        return m;
    }

    /** The node at {@code i} was added, replaced or removed. */
    void nodeChanged(int i) {
        NodeInfo n = state.node(i);
        for (Map.Entry<NodeConstraints, Match> e : cache.entrySet()) set(e.getValue(), e.getKey(), i, n);
    }

    private static void set(Match m, NodeConstraints c, int i, NodeInfo n) {
        m.selected().set(i, n != null && c.selects(n));
        m.tolerated().set(i, n != null && c.toleratesAll(n.taints()));
    }
}
