package dev.ace.binpacker.admission;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which nodes Kubernetes lets a pod run on, written for the tests from the Kubernetes documentation and sharing no
 * code with ACE's own evaluator ({@code PodConstraints}, {@code NodeConstraints}), so a test can check ACE's answer
 * against it (kubernetes.io, "Assigning Pods to Nodes", "Taints and Tolerations"):
 * <ul>
 * <li>nodeSelector: every key/value must be a label of the node, ANDed with the required node affinity;</li>
 * <li>nodeSelectorTerms are ORed, the requirements of one term (matchExpressions and matchFields) ANDed; a term
 * without requirements matches no node; matchFields supports metadata.name only, compared with the node's name;</li>
 * <li>In: the label is present with one of the values; NotIn: absent or none of them; Exists; DoesNotExist;</li>
 * <li>kube-scheduler keeps a pod off a node with a NoSchedule or NoExecute taint it does not tolerate; a pod created
 * with spec.nodeName skips the scheduler: only that node, whose kubelet checks the selector and affinity and refuses
 * only an untolerated NoExecute taint;</li>
 * <li>a toleration matches a taint when its effect is empty or equal and either its key is empty with Exists, or its
 * key is equal with Exists, or with Equal (the default) and an equal value;</li>
 * <li>a node can run the pod only if it offers every extended resource the pod asks for: nvidia.com/gpu where GPU
 * feature discovery counts GPUs ({@code nvidia.com/gpu.count}), a MIG profile where it counts that profile.</li>
 * </ul>
 */
public final class KubernetesReach {
    public static final String GPU = "nvidia.com/gpu";

    private KubernetesReach() {}


    /** The nodes of {@code nodes} Kubernetes would let this pod run on. */
    public static List<Node> reach(Pod pod, List<Node> nodes) {
        List<Node> out = new ArrayList<>();
        String bound = pod.getSpec().getNodeName();
        for (Node n : nodes) {
            if (bound != null && !bound.equals(n.getMetadata().getName())) continue;
            if (!selectorMatches(pod, n) || !affinityMatches(pod, n) || !offersResources(pod, n)) continue;
            if (!tolerated(pod, n, bound != null)) continue;
            out.add(n);
        }
        return out;
    }

    /**
     * Whether kube-scheduler's node filters let the pod onto {@code n}, resources aside: its nodeSelector, required
     * node affinity and NoSchedule/NoExecute taints (what the fake clusters' scheduler checks before counting GPUs).
     */
    public static boolean schedulable(Pod pod, Node n) {
        return selectorMatches(pod, n) && affinityMatches(pod, n) && tolerated(pod, n, false);
    }

    /** A node of pool inference (label ace.dev/pool=inference). */
    public static boolean isInference(Node n) { return "inference".equals(labels(n).get("ace.dev/pool")); }

    private static boolean selectorMatches(Pod pod, Node n) {
        Map<String, String> sel = pod.getSpec().getNodeSelector();
        if (sel == null) return true;
        for (var e : sel.entrySet()) if (!e.getValue().equals(labels(n).get(e.getKey()))) return false;
        return true;
    }

    private static boolean affinityMatches(Pod pod, Node n) {
        var a = pod.getSpec().getAffinity();
        if (a == null || a.getNodeAffinity() == null || a.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) return true;
        for (NodeSelectorTerm t : a.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms()) {
            List<NodeSelectorRequirement> exprs = t.getMatchExpressions() == null ? List.of() : t.getMatchExpressions();
            List<NodeSelectorRequirement> fields = t.getMatchFields() == null ? List.of() : t.getMatchFields();
            if (exprs.isEmpty() && fields.isEmpty()) continue; // an empty term matches no node
            boolean all = true;
            for (NodeSelectorRequirement r : exprs) all &= requirement(r, labels(n).get(r.getKey()));
            for (NodeSelectorRequirement r : fields) all &= "metadata.name".equals(r.getKey()) && requirement(r, n.getMetadata().getName());
            if (all) return true;
        }
        return false;
    }

    private static boolean requirement(NodeSelectorRequirement r, String value) {
        List<String> values = r.getValues() == null ? List.of() : r.getValues();
        return switch (r.getOperator()) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            case "Gt", "Lt" -> value != null && values.size() == 1 && isLong(value) && isLong(values.get(0))
                    && Long.compare(Long.parseLong(value), Long.parseLong(values.get(0))) == ("Gt".equals(r.getOperator()) ? 1 : -1);
            default -> false; // not an operator Kubernetes accepts: the API server would refuse the pod
        };
    }

    private static boolean isLong(String s) {
        try {
            Long.parseLong(s);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static boolean tolerated(Pod pod, Node n, boolean bound) {
        List<Taint> taints = n.getSpec() == null || n.getSpec().getTaints() == null ? List.of() : n.getSpec().getTaints();
        List<Toleration> tols = pod.getSpec().getTolerations() == null ? List.of() : pod.getSpec().getTolerations();
        for (Taint t : taints) {
            boolean repels = bound ? "NoExecute".equals(t.getEffect()) : "NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect());
            if (repels && tols.stream().noneMatch(tol -> tolerates(tol, t))) return false;
        }
        return true;
    }

    private static boolean tolerates(Toleration tol, Taint t) {
        if (tol.getEffect() != null && !tol.getEffect().isEmpty() && !tol.getEffect().equals(t.getEffect())) return false;
        boolean exists = "Exists".equals(tol.getOperator());
        if (tol.getKey() == null || tol.getKey().isEmpty()) return exists;
        if (!tol.getKey().equals(t.getKey())) return false;
        return exists || String.valueOf(tol.getValue()).equals(String.valueOf(t.getValue()));
    }

    /** Every nvidia.com/ resource the pod asks for must be one the node's GPU feature discovery labels count. */
    private static boolean offersResources(Pod pod, Node n) {
        for (Container c : containers(pod)) {
            for (String res : requested(c).keySet()) {
                if (!res.startsWith("nvidia.com/")) continue;
                String count = labels(n).get(res.equals(GPU) ? "nvidia.com/gpu.count" : res + ".count");
                if (count == null || Integer.parseInt(count) <= 0) return false;
            }
        }
        return true;
    }

    /** Whole GPUs the pod asks for, summed over every container and init container (enough to tell none from some). */
    public static int wholeGpus(Pod pod) {
        int n = 0;
        for (Container c : containers(pod)) {
            Quantity q = requested(c).get(GPU);
            if (q != null) n += Integer.parseInt(q.getAmount());
        }
        return n;
    }

    private static Map<String, Quantity> requested(Container c) {
        Map<String, Quantity> m = new HashMap<>();
        if (c.getResources() == null) return m;
        if (c.getResources().getRequests() != null) m.putAll(c.getResources().getRequests());
        if (c.getResources().getLimits() != null) m.putAll(c.getResources().getLimits());
        return m;
    }

    private static List<Container> containers(Pod pod) {
        List<Container> all = new ArrayList<>(pod.getSpec().getContainers());
        if (pod.getSpec().getInitContainers() != null) all.addAll(pod.getSpec().getInitContainers());
        return all;
    }

    private static Map<String, String> labels(Node n) {
        return n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
    }
}
