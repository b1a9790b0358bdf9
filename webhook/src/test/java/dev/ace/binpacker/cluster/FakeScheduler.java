package dev.ace.binpacker.cluster;

import dev.ace.binpacker.cluster.node.NodeShape;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;

/**
 * kube-scheduler as far as GPUs go: binds every pod that has no scheduling gate to the first node
 * (by name) that its nodeSelector, required node affinity ({@code matchExpressions} on labels,
 * {@code matchFields} on {@code metadata.name}) and tolerations allow and whose allocatable
 * {@code nvidia.com/gpu} still covers its request next to the pods bound there. It knows nothing of
 * ACE's reservations, exactly like the real one.
 */
final class FakeScheduler {
    private FakeScheduler() {}

    /** Binds what can be bound; returns how many pods it bound. */
    static int schedule(FakeCluster c) {
        int bound = 0;
        for (Pod p : new ArrayList<>(c.pods.values())) {
            if (p.getSpec().getNodeName() != null || p.getMetadata().getDeletionTimestamp() != null) continue;
            if (p.getSpec().getSchedulingGates() != null && !p.getSpec().getSchedulingGates().isEmpty()) continue;
            if ("Succeeded".equals(p.getStatus().getPhase()) || "Failed".equals(p.getStatus().getPhase())) continue;
            int need = dev.ace.binpacker.workload.GpuCount.held(p.getSpec());
            for (Node n : c.nodes.values()) {
                if (!allows(p, n) || free(c, n) < need) continue;
                p.getSpec().setNodeName(n.getMetadata().getName());
                p.getStatus().setPhase("Running");
                c.store(p);
                bound++;
                break;
            }
        }
        return bound;
    }

    static int free(FakeCluster c, Node n) { return free(c.pods.values(), n); }

    /** Allocatable GPUs of {@code n} that the non-terminal pods bound to it do not request. */
    static int free(java.util.Collection<Pod> pods, Node n) {
        int used = 0;
        for (Pod p : pods) {
            if (!n.getMetadata().getName().equals(p.getSpec().getNodeName())) continue;
            String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
            if ("Succeeded".equals(phase) || "Failed".equals(phase)) continue;
            used += dev.ace.binpacker.workload.GpuCount.held(p.getSpec());
        }
        return NodeShape.allocatableGpus(n) - used;
    }

    /** kube-scheduler's filters but GPUs: selector, required affinity, taints (the tests' reference, {@code KubernetesReach}). */
    static boolean allows(Pod p, Node n) { return dev.ace.binpacker.admission.KubernetesReach.schedulable(p, n); }
}
