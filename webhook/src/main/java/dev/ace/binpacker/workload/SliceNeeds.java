package dev.ace.binpacker.workload;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.LabelRequirement;
import dev.ace.binpacker.placement.NodeConstraints;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The MIG and MPS resources a pod asks for beside its whole GPUs decide the node too (issue 17): a Job
 * with whole GPUs and a MIG container placed by its whole GPUs alone lands on a node without MIG, never
 * starts and holds its GPUs. Each such resource becomes one more requirement every node ACE may pick
 * must meet, read from the labels GPU feature discovery puts on the nodes that offer it
 * ({@code nvidia.com/mig-<profile>.count > 0}; {@code nvidia.com/gpu.sharing-strategy} mps or
 * time-slicing for {@code nvidia.com/gpu.shared}). It only ever narrows.
 */
public final class SliceNeeds {
    private SliceNeeds() {}

    /** {@code c} narrowed to nodes that offer every MIG profile and GPU share the pod requests (c itself when none). */
    public static NodeConstraints narrow(Pod pod, NodeConstraints c) {
        List<LabelRequirement> needs = requirements(pod);
        return needs.isEmpty() ? c : c.andAnyOf(List.of(needs));
    }

    /** One label requirement per distinct slice resource of any container (init containers included), in name order. */
    static List<LabelRequirement> requirements(Pod pod) {
        Set<String> resources = new TreeSet<>();
        if (pod.getSpec() != null) {
            for (List<Container> cs : List.of(nullSafe(pod.getSpec().getContainers()), nullSafe(pod.getSpec().getInitContainers()))) {
                for (Container c : cs) {
                    if (c.getResources() == null) continue;
                    collect(c.getResources().getLimits(), resources);
                    collect(c.getResources().getRequests(), resources);
                }
            }
        }
        List<LabelRequirement> out = new ArrayList<>();
        for (String r : resources) {
            if (r.equals(AceKeys.GPU_SHARED)) {
                out.add(new LabelRequirement(AceKeys.SHARING_STRATEGY, "In", List.of("mps", "time-slicing")));
            } else {
                out.add(new LabelRequirement(r + ".count", "Gt", List.of("0")));
            }
        }
        return out;
    }

    private static void collect(Map<String, Quantity> m, Set<String> out) {
        if (m == null) return;
        for (String k : m.keySet()) {
            if (k.equals(AceKeys.GPU_SHARED) || (k.startsWith(AceKeys.MIG_PREFIX) && k.length() > AceKeys.MIG_PREFIX.length())) out.add(k);
        }
    }

    private static List<Container> nullSafe(List<Container> l) { return l == null ? List.of() : l; }
}
