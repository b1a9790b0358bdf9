package dev.ace.binpacker.admission;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Taint;
import dev.ace.binpacker.workload.PodConstraints;
import dev.ace.binpacker.workload.SliceNeeds;
import io.fabric8.kubernetes.api.model.Pod;
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
            if (!c.selects(n)) continue;
            if (checkTaints && !c.toleratesAll(n.taints())) continue;
            out.add(n);
        }
        return out;
    }

    /**
     * The GPU nodes a pod can really be run on as it is, by Kubernetes' own rules, whatever ACE would prefer: its
     * nodeSelector, every nodeSelectorTerm of its required node affinity (ORed), {@code spec.nodeName}, and the
     * taints it does not tolerate. A pod bound by {@code spec.nodeName} never meets kube-scheduler: the kubelet
     * admits it on that node if its selector and affinity match, and refuses it only for an untolerated
     * {@code NoExecute} taint, so a {@code NoSchedule} taint (the slicing pool's) does not keep it off. The pod's
     * own constraints ({@link PodConstraints}) and the MIG and MPS resources it asks for, which no node without them
     * admits ({@link SliceNeeds}); never ACE's narrowing by image architecture, which kube-scheduler does not know
     * about. Reads every node: for the non-TP paths only.
     */
    static Reach reach(ClusterState s, Pod pod) {
        NodeConstraints own = SliceNeeds.narrow(pod, PodConstraints.of(pod));
        String boundTo = PodConstraints.boundNode(pod);
        boolean bound = boundTo != null;
        List<NodeInfo> out = new ArrayList<>();
        int only = bound ? s.indexOf(boundTo) : -1; // spec.nodeName: that node or none
        if (bound && only < 0) return new Reach(out);
        for (int i = bound ? only : 0; i < (bound ? only + 1 : s.capacity()); i++) {
            NodeInfo n = s.node(i);
            if (n == null || n.gpuCount() == 0 || !own.selects(n)) continue;
            List<Taint> repelling = bound ? n.taints().stream().filter(t -> "NoExecute".equals(t.effect())).toList() : n.taints();
            if (!own.toleratesAll(repelling)) continue;
            out.add(n);
        }
        return new Reach(out);
    }

    /** The GPU nodes a pod can reach as it is ({@link #reach}). */
    record Reach(List<NodeInfo> nodes) {
        /** Some node of pool inference is among them. */
        boolean inference() { return nodes.stream().anyMatch(n -> n.pool() == Pool.INFERENCE); }

        /** Every one is a node of pool inference (and there is one). */
        boolean onlyInference() { return !nodes.isEmpty() && nodes.stream().allMatch(n -> n.pool() == Pool.INFERENCE); }

        /** A node of pool slicing is among them. */
        boolean slicing() { return nodes.stream().anyMatch(n -> n.pool() == Pool.SLICING); }

        /** "hgx-h100-0, hgx-h100-1 and 1 more": the pool inference nodes among them, for a denial. */
        String inferenceNodes() {
            List<String> names = nodes.stream().filter(n -> n.pool() == Pool.INFERENCE).map(NodeInfo::name).toList();
            if (names.size() <= 3) return String.join(", ", names);
            return String.join(", ", names.subList(0, 3)) + " and " + (names.size() - 3) + " more";
        }
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
