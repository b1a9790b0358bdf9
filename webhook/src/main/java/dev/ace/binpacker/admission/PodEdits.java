package dev.ace.binpacker.admission;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** In-place edits of a (cloned) pod. Each only adds to what the pod already says: ACE narrows, never widens. */
final class PodEdits {
    private PodEdits() {}

    static void annotate(Pod pod, String key, String value) {
        if (pod.getMetadata() == null) pod.setMetadata(new ObjectMeta());
        Map<String, String> a = pod.getMetadata().getAnnotations();
        a = a == null ? new LinkedHashMap<>() : new LinkedHashMap<>(a);
        a.put(key, value);
        pod.getMetadata().setAnnotations(a);
    }

    /**
     * Requires {@code metadata.name In [node]} as a {@code matchFields} requirement, as the DaemonSet
     * controller pins its pods: the {@code kubernetes.io/hostname} label is the kubelet's and may differ
     * from the node's name. Terms are ORed, so the requirement goes into every existing term (adding a
     * new term would widen the pod, not narrow it).
     */
    static void pinToNode(Pod pod, String node) {
        NodeSelector required = requiredSelector(pod);
        List<NodeSelectorTerm> terms = required.getNodeSelectorTerms();
        if (terms == null || terms.isEmpty()) {
            terms = new ArrayList<>();
            terms.add(new NodeSelectorTerm());
            required.setNodeSelectorTerms(terms);
        }
        for (NodeSelectorTerm t : terms) {
            List<NodeSelectorRequirement> fields = t.getMatchFields() == null ? new ArrayList<>() : new ArrayList<>(t.getMatchFields());
            NodeSelectorRequirement r = new NodeSelectorRequirement(AceKeys.NODE_NAME_FIELD, "In", List.of(node));
            if (!fields.contains(r)) fields.add(r);
            t.setMatchFields(fields);
        }
    }

    /**
     * Requires one of {@code alternatives} (each a list of node-label requirements, ANDed) besides what the pod's own
     * required terms say: every existing term ANDed with each alternative (terms are ORed), so the pod only narrows.
     */
    static void requireOneOf(Pod pod, List<List<dev.ace.binpacker.placement.LabelRequirement>> alternatives) {
        if (alternatives.isEmpty()) return;
        NodeSelector required = requiredSelector(pod);
        List<NodeSelectorTerm> own = required.getNodeSelectorTerms() == null || required.getNodeSelectorTerms().isEmpty()
                ? List.of(new NodeSelectorTerm()) : required.getNodeSelectorTerms();
        List<NodeSelectorTerm> terms = new ArrayList<>();
        for (NodeSelectorTerm t : own) {
            for (List<dev.ace.binpacker.placement.LabelRequirement> alt : alternatives) {
                List<NodeSelectorRequirement> exprs = t.getMatchExpressions() == null ? new ArrayList<>() : new ArrayList<>(t.getMatchExpressions());
                for (var r : alt) exprs.add(new NodeSelectorRequirement(r.key(), r.operator(), new ArrayList<>(r.values())));
                terms.add(new NodeSelectorTerm(exprs, t.getMatchFields() == null ? null : new ArrayList<>(t.getMatchFields())));
            }
        }
        required.setNodeSelectorTerms(terms);
    }

    private static NodeSelector requiredSelector(Pod pod) {
        Affinity affinity = pod.getSpec().getAffinity();
        if (affinity == null) {
            affinity = new Affinity();
            pod.getSpec().setAffinity(affinity);
        }
        NodeAffinity na = affinity.getNodeAffinity();
        if (na == null) {
            na = new NodeAffinity();
            affinity.setNodeAffinity(na);
        }
        NodeSelector required = na.getRequiredDuringSchedulingIgnoredDuringExecution();
        if (required == null) {
            required = new NodeSelector();
            na.setRequiredDuringSchedulingIgnoredDuringExecution(required);
        }
        return required;
    }

    /** The node a pod is pinned to by {@link #pinToNode}, if any. */
    static java.util.Optional<String> pinnedNode(Pod pod) {
        if (pod.getSpec() == null || pod.getSpec().getAffinity() == null || pod.getSpec().getAffinity().getNodeAffinity() == null) {
            return java.util.Optional.empty();
        }
        NodeSelector required = pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
        if (required == null || required.getNodeSelectorTerms() == null) return java.util.Optional.empty();
        for (NodeSelectorTerm t : required.getNodeSelectorTerms()) {
            if (t.getMatchFields() == null) continue;
            for (NodeSelectorRequirement r : t.getMatchFields()) {
                if (AceKeys.NODE_NAME_FIELD.equals(r.getKey()) && "In".equals(r.getOperator()) && r.getValues() != null
                        && r.getValues().size() == 1) {
                    return java.util.Optional.of(r.getValues().get(0));
                }
            }
        }
        return java.util.Optional.empty();
    }

    /**
     * The pod can only run on {@code node}: bound to it, or (what {@link #pinToNode} writes) every required
     * nodeSelectorTerm requires {@code metadata.name In [node]} in its matchFields.
     */
    static boolean pinnedTo(Pod pod, String node) {
        if (pod.getSpec() == null) return false;
        if (node.equals(pod.getSpec().getNodeName())) return true;
        Affinity affinity = pod.getSpec().getAffinity();
        NodeSelector required = affinity == null || affinity.getNodeAffinity() == null ? null
                : affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
        if (required == null || required.getNodeSelectorTerms() == null || required.getNodeSelectorTerms().isEmpty()) return false;
        NodeSelectorRequirement pin = new NodeSelectorRequirement(AceKeys.NODE_NAME_FIELD, "In", List.of(node));
        return required.getNodeSelectorTerms().stream()
                .allMatch(t -> t.getMatchFields() != null && t.getMatchFields().contains(pin));
    }

    static void addSchedulingGate(Pod pod, String name) {
        List<PodSchedulingGate> gates = pod.getSpec().getSchedulingGates();
        gates = gates == null ? new ArrayList<>() : new ArrayList<>(gates);
        if (gates.stream().noneMatch(g -> name.equals(g.getName()))) gates.add(new PodSchedulingGate(name));
        pod.getSpec().setSchedulingGates(gates);
    }

    static boolean hasSchedulingGate(Pod pod, String name) {
        return pod.getSpec() != null && pod.getSpec().getSchedulingGates() != null
                && pod.getSpec().getSchedulingGates().stream().anyMatch(g -> name.equals(g.getName()));
    }

    static void selectPool(Pod pod, String poolValue) {
        Map<String, String> sel = pod.getSpec().getNodeSelector();
        sel = sel == null ? new LinkedHashMap<>() : new LinkedHashMap<>(sel);
        sel.put(AceKeys.POOL, poolValue);
        pod.getSpec().setNodeSelector(sel);
    }

    /** Tolerates a NoSchedule taint {@code key=*}, unless the pod already tolerates it. */
    static void tolerate(Pod pod, String key) {
        List<Toleration> tol = pod.getSpec().getTolerations();
        tol = tol == null ? new ArrayList<>() : new ArrayList<>(tol);
        for (Toleration t : tol) {
            boolean anyKey = (t.getKey() == null || t.getKey().isEmpty()) && "Exists".equals(t.getOperator());
            boolean sameKey = key.equals(t.getKey()) && "Exists".equals(t.getOperator());
            boolean effectOk = t.getEffect() == null || t.getEffect().isEmpty() || "NoSchedule".equals(t.getEffect());
            if ((anyKey || sameKey) && effectOk) return;
        }
        Toleration t = new Toleration();
        t.setKey(key);
        t.setOperator("Exists");
        t.setEffect("NoSchedule");
        tol.add(t);
        pod.getSpec().setTolerations(tol);
    }

    /** Replaces {@code nvidia.com/gpu} by {@code resource} (same count) in requests and limits of every container. */
    static void replaceGpuResource(Pod pod, String resource) {
        if (AceKeys.GPU.equals(resource)) return;
        List<Container> all = new ArrayList<>();
        if (pod.getSpec().getContainers() != null) all.addAll(pod.getSpec().getContainers());
        if (pod.getSpec().getInitContainers() != null) all.addAll(pod.getSpec().getInitContainers());
        for (Container c : all) {
            if (c.getResources() == null) continue;
            c.getResources().setLimits(swap(c.getResources().getLimits(), resource));
            c.getResources().setRequests(swap(c.getResources().getRequests(), resource));
        }
    }

    private static Map<String, Quantity> swap(Map<String, Quantity> m, String resource) {
        if (m == null || !m.containsKey(AceKeys.GPU)) return m;
        Map<String, Quantity> out = new LinkedHashMap<>();
        for (Map.Entry<String, Quantity> e : m.entrySet()) {
            if (e.getKey().equals(AceKeys.GPU)) out.put(resource, e.getValue());
            else out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    static Map<String, String> annotations(Pod pod) {
        return pod.getMetadata() == null || pod.getMetadata().getAnnotations() == null
                ? Map.of() : new HashMap<>(pod.getMetadata().getAnnotations());
    }
}
