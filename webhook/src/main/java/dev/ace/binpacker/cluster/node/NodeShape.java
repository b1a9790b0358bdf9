package dev.ace.binpacker.cluster.node;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;
import java.util.Map;

/**
 * What of a Node the packer's view is made of: its labels (pool, GFD board facts, Topology Manager
 * policy), its {@code ace.dev/topology} matrix, its taints and its allocatable GPUs ({@link NodeMapper}
 * reads nothing else). Most Node updates change none of it: the kubelet's status writes, and (agents
 * before GpuNodeReport) the {@code ace.dev/gpu-allocation} annotation on every pod start and stop. Allocatable
 * besides GPUs (cpu, memory, rdma/roce_gdr...) is part of the shape: fit before pin checks a pod's other requests
 * against it. When the shape is equal the node is
 * not mapped again (no topology parse) and not upserted (the packer's index does not regroup it).
 */
public record NodeShape(Map<String, String> labels, String topology, List<Taint> taints, int allocatable,
                 dev.ace.binpacker.placement.Resources other) {
    public static NodeShape of(Node node) {
        var meta = node.getMetadata();
        Map<String, String> annotations = meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
        List<Taint> taints = node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : List.copyOf(node.getSpec().getTaints());
        return new NodeShape(meta.getLabels() == null ? Map.of() : Map.copyOf(meta.getLabels()), annotations.get(AceKeys.TOPOLOGY),
                taints, allocatableGpus(node), dev.ace.binpacker.workload.PodRequests.allocatable(node));
    }

    /** The report annotation agents before GpuNodeReport wrote on the Node, or null (read where no object exists). */
    public static String report(Node node) {
        Map<String, String> a = node.getMetadata().getAnnotations();
        return a == null ? null : a.get(AceKeys.GPU_ALLOCATION);
    }

    /** Whole GPUs the node offers ({@code status.allocatable}); none when the device plugin has not registered. */
    public static int allocatableGpus(Node node) {
        if (node.getStatus() == null || node.getStatus().getAllocatable() == null) return 0;
        Quantity q = node.getStatus().getAllocatable().get(AceKeys.GPU);
        if (q == null) return 0;
        try {
            return Quantity.getAmountInBytes(q).intValue();
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
