package dev.ace.binpacker.workload;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.LabelRequirement;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.Toleration;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A pod's own nodeSelector, required node affinity, {@code spec.nodeName} and tolerations as {@link NodeConstraints};
 * a pod created with {@code spec.nodeName} allows that node only (its name is matched against the node's hostname
 * label, as {@code matchFields} are).
 */
public final class PodConstraints {
    private PodConstraints() {}

    public static NodeConstraints of(Pod pod) {
        if (pod.getSpec() == null) return NodeConstraints.NONE;
        Map<String, String> selector = pod.getSpec().getNodeSelector();
        String bound = boundNode(pod);
        if (bound != null) {
            Map<String, String> narrowed = new java.util.HashMap<>(selector == null ? Map.of() : selector);
            // A nodeSelector that names another hostname leaves no node: the kubelet would refuse the pod too.
            narrowed.merge(AceKeys.HOSTNAME, bound, (a, b) -> a.equals(b) ? a : "\u0000not " + b);
            selector = narrowed;
        }
        List<List<LabelRequirement>> terms = new ArrayList<>();
        NodeSelector required = requiredTerms(pod);
        if (required != null && required.getNodeSelectorTerms() != null) {
            for (NodeSelectorTerm t : required.getNodeSelectorTerms()) {
                List<LabelRequirement> term = new ArrayList<>();
                if (t.getMatchExpressions() != null) {
                    for (NodeSelectorRequirement r : t.getMatchExpressions()) {
                        term.add(new LabelRequirement(r.getKey(), r.getOperator(), r.getValues()));
                    }
                }
                if (t.getMatchFields() != null) {
                    // matchFields only supports metadata.name; the hostname label carries the node name on every
                    // kubelet-registered node, which is what the packer can see.
                    for (NodeSelectorRequirement r : t.getMatchFields()) {
                        term.add(new LabelRequirement(AceKeys.HOSTNAME, r.getOperator(), r.getValues()));
                    }
                }
                terms.add(term);
            }
        }
        String nodeName = pod.getSpec().getNodeName();
        if (nodeName != null && !nodeName.isEmpty()) {
            // spec.nodeName binds the pod to that node without the scheduler: ACE may only decide on that node (issue 17).
            LabelRequirement on = new LabelRequirement(AceKeys.HOSTNAME, "In", List.of(nodeName));
            if (terms.isEmpty()) terms.add(new ArrayList<>());
            for (List<LabelRequirement> t : terms) t.add(on);
        }
        List<Toleration> tolerations = new ArrayList<>();
        if (pod.getSpec().getTolerations() != null) {
            for (io.fabric8.kubernetes.api.model.Toleration t : pod.getSpec().getTolerations()) {
                String op = t.getOperator() == null ? "Equal" : t.getOperator();
                tolerations.add(new Toleration(t.getKey(), op, t.getValue(), t.getEffect()));
            }
        }
        return new NodeConstraints(selector, terms, tolerations);
    }

    /** The node a pod was created bound to ({@code spec.nodeName}: it never reaches kube-scheduler), or null. */
    public static String boundNode(Pod pod) {
        if (pod == null || pod.getSpec() == null) return null;
        String n = pod.getSpec().getNodeName();
        return n == null || n.isBlank() ? null : n;
    }

    static NodeSelector requiredTerms(Pod pod) {
        var a = pod.getSpec().getAffinity();
        if (a == null || a.getNodeAffinity() == null) return null;
        return a.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
    }
}
