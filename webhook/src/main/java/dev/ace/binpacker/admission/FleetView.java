package dev.ace.binpacker.admission;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Pool;
import java.util.ArrayList;
import java.util.List;

/** Questions about the node set that the policy asks before calling the packer. Call under the allocator lock. */
final class FleetView {
    private FleetView() {}

    /** Pools offered to a whole-GPU inference pod, in order ({@link dev.ace.binpacker.placement.Packer#inferencePools}). */
    static List<Pool> inferencePools(Allocator al, int gpus, NodeConstraints c) {
        return al.packer().inferencePools(gpus, c);
    }

    /** Free 8-GPU cliques on the inference pool, counted per distinct board state in the packer's index. */
    static int free8Cliques(Allocator al) {
        return al.packer().freeCliques(Pool.INFERENCE, 8);
    }

    /** GPU nodes of a pool that the pod's own nodeSelector, affinity and tolerations allow (reads every node: not for the TP path). */
    static List<NodeInfo> allowed(ClusterState s, Pool pool, NodeConstraints c, boolean checkTaints) {
        List<NodeInfo> out = new ArrayList<>();
        for (int i = 0; i < s.capacity(); i++) {
            NodeInfo n = s.node(i);
            if (n == null || n.gpuCount() == 0 || (pool != null && n.pool() != pool)) continue;
            if (!c.selects(n.labels())) continue;
            if (checkTaints && !c.toleratesAll(n.taints())) continue;
            out.add(n);
        }
        return out;
    }

    /**
     * Largest NVLink clique of the pool's GPU nodes the pod allows (1 when none has NVLink), 0 when the
     * pod may use no GPU node of the pool: from the packer's index.
     */
    static int domainSize(Allocator al, Pool pool, NodeConstraints c) {
        return al.packer().largestClique(pool, c);
    }

    /** Largest NVLink clique over the given nodes' boards. */
    static int domainSize(List<NodeInfo> nodes) {
        int d = 1;
        for (NodeInfo n : nodes) if (n.board() != null) d = Math.max(d, n.board().largestClique());
        return d;
    }
}
