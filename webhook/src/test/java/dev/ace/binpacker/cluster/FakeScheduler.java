package dev.ace.binpacker.cluster;

import dev.ace.binpacker.cluster.node.NodeShape;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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

    static boolean allows(Pod p, Node n) {
        Map<String, String> labels = n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
        if (p.getSpec().getNodeSelector() != null) {
            for (var e : p.getSpec().getNodeSelector().entrySet()) {
                if (!e.getValue().equals(labels.get(e.getKey()))) return false;
            }
        }
        var a = p.getSpec().getAffinity();
        if (a != null && a.getNodeAffinity() != null && a.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
            List<NodeSelectorTerm> terms = a.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms();
            if (terms != null && !terms.isEmpty() && terms.stream().noneMatch(t -> term(t, n, labels))) return false;
        }
        if (n.getSpec() != null && n.getSpec().getTaints() != null) {
            for (Taint t : n.getSpec().getTaints()) {
                if (!"NoSchedule".equals(t.getEffect()) && !"NoExecute".equals(t.getEffect())) continue;
                List<Toleration> tol = p.getSpec().getTolerations() == null ? List.of() : p.getSpec().getTolerations();
                if (tol.stream().noneMatch(x -> tolerates(x, t))) return false;
            }
        }
        return true;
    }

    private static boolean term(NodeSelectorTerm t, Node n, Map<String, String> labels) {
        if (t.getMatchExpressions() != null) {
            for (NodeSelectorRequirement r : t.getMatchExpressions()) {
                if (!matches(r, labels.get(r.getKey()))) return false;
            }
        }
        if (t.getMatchFields() != null) {
            for (NodeSelectorRequirement r : t.getMatchFields()) {
                if (!AceKeys.NODE_NAME_FIELD.equals(r.getKey()) || !matches(r, n.getMetadata().getName())) return false;
            }
        }
        return true;
    }

    private static boolean matches(NodeSelectorRequirement r, String value) {
        List<String> values = r.getValues() == null ? List.of() : r.getValues();
        return switch (r.getOperator()) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            default -> false;
        };
    }

    private static boolean tolerates(Toleration x, Taint t) {
        boolean keyOk = x.getKey() == null || x.getKey().isEmpty() ? "Exists".equals(x.getOperator()) : x.getKey().equals(t.getKey());
        boolean valueOk = "Exists".equals(x.getOperator()) || Objects.equals(x.getValue(), t.getValue());
        boolean effectOk = x.getEffect() == null || x.getEffect().isEmpty() || x.getEffect().equals(t.getEffect());
        return keyOk && valueOk && effectOk;
    }
}
