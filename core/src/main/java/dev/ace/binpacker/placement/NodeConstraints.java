package dev.ace.binpacker.placement;

import java.util.List;
import java.util.Map;

/**
 * Where a pod itself allows to run: nodeSelector, required node affinity (terms are ORed,
 * expressions inside a term ANDed) and tolerations. ACE only ever narrows this set.
 */
public record NodeConstraints(Map<String, String> nodeSelector,
                              List<List<LabelRequirement>> affinityTerms,
                              List<Toleration> tolerations) {
    public static final NodeConstraints NONE = new NodeConstraints(Map.of(), List.of(), List.of());

    public NodeConstraints {
        nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
        affinityTerms = affinityTerms == null ? List.of() : affinityTerms.stream().map(List::copyOf).toList();
        tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
    }

    /**
     * These constraints narrowed to nodes that also meet one of {@code alternatives} (each a list of requirements,
     * ANDed): every own term ANDed with each alternative, since terms are ORed; an empty list of alternatives
     * matches no node. Never wider than this.
     */
    public NodeConstraints andAnyOf(List<List<LabelRequirement>> alternatives) {
        List<List<LabelRequirement>> own = affinityTerms.isEmpty() ? List.of(List.of()) : affinityTerms;
        List<List<LabelRequirement>> terms = new java.util.ArrayList<>();
        for (List<LabelRequirement> t : own) {
            for (List<LabelRequirement> alt : alternatives) {
                List<LabelRequirement> both = new java.util.ArrayList<>(t);
                both.addAll(alt);
                terms.add(both);
            }
        }
        if (terms.isEmpty()) terms.add(List.of(new LabelRequirement("", "In", List.of()))); // no alternative: no node
        return new NodeConstraints(nodeSelector, terms, tolerations);
    }

    public boolean isEmpty() { return nodeSelector.isEmpty() && affinityTerms.isEmpty() && tolerations.isEmpty(); }

    /** nodeSelector and required affinity against the node: its labels, and its name for {@code metadata.name}. */
    public boolean selects(NodeInfo node) { return selects(node.name(), node.labels()); }

    /** nodeSelector and required affinity against a node's name and labels. */
    public boolean selects(String nodeName, Map<String, String> labels) {
        for (Map.Entry<String, String> e : nodeSelector.entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) return false;
        }
        if (affinityTerms.isEmpty()) return true;
        for (List<LabelRequirement> term : affinityTerms) {
            boolean all = true;
            for (LabelRequirement r : term) {
                if (!r.matches(nodeName, labels)) { all = false; break; }
            }
            if (all) return true;
        }
        return false;
    }

    /** Against labels only, the hostname label standing for the node's name ({@link LabelRequirement#matches(Map)}). */
    public boolean selects(Map<String, String> labels) { return selects(labels.get("kubernetes.io/hostname"), labels); }

    /** True when every repelling taint of the node is tolerated. */
    public boolean toleratesAll(List<Taint> taints) {
        for (Taint t : taints) {
            if (!t.repels()) continue;
            boolean ok = false;
            for (Toleration tol : tolerations) {
                if (tol.tolerates(t)) { ok = true; break; }
            }
            if (!ok) return false;
        }
        return true;
    }
}
