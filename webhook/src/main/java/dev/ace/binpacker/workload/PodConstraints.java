package dev.ace.binpacker.workload;

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
 * a pod created with {@code spec.nodeName} allows that node only. Its name, like {@code matchFields metadata.name},
 * is matched against the node's name ({@link LabelRequirement#NODE_NAME}), never its hostname label.
 */
public final class PodConstraints {
    private PodConstraints() {}

    public static NodeConstraints of(Pod pod) {
        if (pod.getSpec() == null) return NodeConstraints.NONE;
        Map<String, String> selector = pod.getSpec().getNodeSelector();
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
                    // matchFields supports metadata.name only: the node's name, which its hostname label need not equal.
                    for (NodeSelectorRequirement r : t.getMatchFields()) {
                        term.add("metadata.name".equals(r.getKey()) ? LabelRequirement.nodeName(r.getOperator(), r.getValues())
                                : new LabelRequirement("", "In", List.of())); // another field: the API server refuses it; no node
                    }
                }
                terms.add(term);
            }
        }
        String nodeName = pod.getSpec().getNodeName();
        if (nodeName != null && !nodeName.isEmpty()) {
            // spec.nodeName binds the pod to that node without the scheduler: ACE may only decide on that node (issue 17),
            // named as the kubelet knows it, whatever its hostname label says (issue 34). Its selector and affinity still
            // apply (the kubelet refuses a pod whose node does not match them).
            LabelRequirement on = LabelRequirement.nodeName("In", List.of(nodeName));
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
