package dev.ace.binpacker.placement;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reasons of an unschedulable decision, counted per index group and free-mask slot instead
 * of per node: every filter but the pod's own label and taint checks is a property of the group
 * (pool, board) or the slot (free mask), and those two come as bitsets from
 * {@link ConstraintMatches}. Each node still gets exactly one reason, the first filter it fails,
 * in the packer's filter order. Only trace replay (CPU counted, a GPU model pinned) and pods whose
 * other requests (memory, rdma/roce_gdr...) are checked against nodes that report allocatable look at
 * single nodes. At 12,500 nodes this is what keeps a gated TP8 pod from costing milliseconds
 * under the allocator lock (issue 10).
 */
final class IndexReasons {
    private final ClusterState state;
    private final NodeIndex index;
    private final Map<ReasonCode, Map<String, Integer>> counts = new EnumMap<>(ReasonCode.class);

    private IndexReasons(ClusterState state, NodeIndex index) {
        this.state = state;
        this.index = index;
    }

    static PlacementResult.Unschedulable explain(ClusterState state, NodeIndex index, PlacementRequest r, boolean clique) {
        return new IndexReasons(state, index).count(r, clique);
    }

    private PlacementResult.Unschedulable count(PlacementRequest r, boolean clique) {
        ConstraintMatches.Match m = r.constraints().isEmpty() ? null : index.matches(r.constraints());
        for (IndexGroup g : index.groups()) group(g, m, r, clique);
        List<PlacementResult.ReasonCount> reasons = new ArrayList<>();
        counts.forEach((code, byDetail) -> byDetail.forEach((detail, c) -> reasons.add(new PlacementResult.ReasonCount(code, detail, c))));
        reasons.sort((a, b) -> Integer.compare(b.nodes(), a.nodes()));
        return new PlacementResult.Unschedulable(state.liveNodes(), reasons);
    }

    private void group(IndexGroup g, ConstraintMatches.Match m, PlacementRequest r, boolean clique) {
        // The pod's own nodeSelector, affinity and taints first: a selector typo must read as one, not as "in pool X".
        if (!r.pools().contains(g.pool) && m == null) {
            add(ReasonCode.WRONG_POOL, g.pool.label(), g.members);
            return;
        }
        if (m == null && g.tainted) {
            add(ReasonCode.UNTOLERATED_TAINT, "", g.members);
            return;
        }
        boolean perNode = r.gpuModel() != null || (r.cpuMilli() > 0 && g.scorer != null)
                || (g.scorer != null && !r.needs().isEmpty() && state.resourceTrackedNodes() > 0);
        BitSet passingGroup = null;
        if (m != null) {
            // the pod's own constraints, for the whole group at once: most groups pass or fail them whole
            BitSet selected = (BitSet) g.all.clone();
            selected.and(m.selected());
            BitSet passing = (BitSet) selected.clone();
            passing.and(m.tolerated());
            int sel = selected.cardinality(), pass = passing.cardinality();
            add(ReasonCode.NOT_SELECTED, "", g.members - sel);
            if (!r.pools().contains(g.pool)) {
                add(ReasonCode.WRONG_POOL, g.pool.label(), sel);
                return;
            }
            add(ReasonCode.UNTOLERATED_TAINT, "", sel - pass);
            if (pass == 0) return;
            if (pass < g.members || perNode) passingGroup = passing;
        }
        int[] passingPerSlot = g.counts;
        if (passingGroup != null && !perNode) {
            // one pass over the passing nodes, tallied by slot: no BitSet per slot
            passingPerSlot = new int[g.slots];
            for (int i = passingGroup.nextSetBit(0); i >= 0; i = passingGroup.nextSetBit(i + 1)) passingPerSlot[g.slotOfNode[i]]++;
        }
        for (int slot = 0; slot < g.slots; slot++) {
            long free = g.masks[slot];
            if (!perNode) {
                ReasonCode code = groupReason(g, r, clique, free);
                add(code, detail(g, r, code), passingPerSlot[slot]);
            } else if (passingGroup == null) {
                perNode(g.nodes[slot], r, clique, free);
            } else {
                BitSet nodes = (BitSet) g.nodes[slot].clone();
                nodes.and(passingGroup);
                perNode(nodes, r, clique, free);
            }
        }
    }

    /** The first filter after the pod's own constraints, the same for every node of the slot. */
    private static ReasonCode groupReason(IndexGroup g, PlacementRequest r, boolean clique, long free) {
        if (g.scorer == null) return ReasonCode.NO_GPUS;
        if (g.board().gpuCount() < r.gpus()) return ReasonCode.TOO_FEW_GPUS;
        if (clique && g.board().largestClique() < r.gpus()) return ReasonCode.NO_CLIQUE_ON_BOARD;
        if (!g.scorer.policy().canEverAdmit(g.board(), r.gpus())) return ReasonCode.TOPOLOGY_POLICY;
        if (r.isShare()) return ReasonCode.NO_GPU_SHARE;
        if (Long.bitCount(free) < r.gpus()) return ReasonCode.TOO_FEW_FREE_GPUS;
        return ReasonCode.NO_FREE_CLIQUE;
    }

    private static String detail(IndexGroup g, PlacementRequest r, ReasonCode code) {
        if (code == ReasonCode.TOPOLOGY_POLICY) return topologyDetail(g.scorer.policy(), r);
        return g.scorer == null ? "" : r.isShare() ? Integer.toString(r.milliPerGpu()) : Integer.toString(r.gpus());
    }

    private static String topologyDetail(dev.ace.binpacker.topology.TopologyManagerPolicy p, PlacementRequest r) {
        return p.label() + " and no NUMA node with " + r.gpus() + " GPUs";
    }

    /** Trace replay only: the GPU model and CPU differ node by node. */
    private void perNode(BitSet passing, PlacementRequest r, boolean clique, long free) {
        for (int i = passing.nextSetBit(0); i >= 0; i = passing.nextSetBit(i + 1)) {
            NodeInfo n = state.node(i);
            String missing;
            if (r.gpuModel() != null && !r.gpuModel().equals(n.gpuModel())) {
                add(ReasonCode.WRONG_GPU_MODEL, r.gpuModel(), 1);
            } else if (n.board() == null) {
                add(ReasonCode.NO_GPUS, "", 1);
            } else if (n.gpuCount() < r.gpus()) {
                add(ReasonCode.TOO_FEW_GPUS, Integer.toString(r.gpus()), 1);
            } else if (clique && n.board().largestClique() < r.gpus()) {
                add(ReasonCode.NO_CLIQUE_ON_BOARD, Integer.toString(r.gpus()), 1);
            } else if (!n.topologyPolicy().canEverAdmit(n.board(), r.gpus())) {
                add(ReasonCode.TOPOLOGY_POLICY, topologyDetail(n.topologyPolicy(), r), 1);
            } else if ((missing = state.shortOf(i, r.needs(), false)) != null) { // each fit check runs once per node
                add(ReasonCode.RESOURCE_NOT_OFFERED, r.needs().render(missing), 1);
            } else if ((missing = state.shortOf(i, r.needs(), true)) != null) {
                add(ReasonCode.INSUFFICIENT_RESOURCE, r.needs().render(missing), 1);
            } else if (r.cpuMilli() > 0 && n.cpuMilli() > 0 && state.cpuFree(i) < r.cpuMilli()) {
                add(ReasonCode.INSUFFICIENT_CPU, r.cpuMilli() + "m", 1);
            } else if (r.isShare()) {
                add(ReasonCode.NO_GPU_SHARE, Integer.toString(r.milliPerGpu()), 1);
            } else if (Long.bitCount(free) < r.gpus()) {
                add(ReasonCode.TOO_FEW_FREE_GPUS, Integer.toString(r.gpus()), 1);
            } else {
                add(ReasonCode.NO_FREE_CLIQUE, Integer.toString(r.gpus()), 1);
            }
        }
    }

    private void add(ReasonCode code, String detail, int nodes) {
        if (nodes > 0) counts.computeIfAbsent(code, c -> new LinkedHashMap<>()).merge(detail, nodes, Integer::sum);
    }
}
