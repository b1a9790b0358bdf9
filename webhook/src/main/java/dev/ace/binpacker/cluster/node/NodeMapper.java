package dev.ace.binpacker.cluster.node;

import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Taint;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A Kubernetes Node -> {@link NodeInfo}: pool label, taints, labels, the board from {@link BoardResolver}
 * and the kubelet's Topology Manager policy from the label the node agent sets (none when absent or unknown).
 */
public final class NodeMapper {
    private final BoardResolver boards;

    public NodeMapper(BoardResolver boards) { this.boards = boards; }

    /** Topology annotation, else board catalog, else a PCIe-only board of the labelled GPU count. */
    public static NodeMapper standard() { return new NodeMapper(new Boards()); }

    /** The node's board and where it came from, with the reason a better source was not used (the {@code nodes} report). */
    public BoardResolver.Resolved resolve(Node node) {
        Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        Map<String, String> annotations = node.getMetadata().getAnnotations() == null ? Map.of() : node.getMetadata().getAnnotations();
        return boards.resolve(node.getMetadata().getName(), labels, annotations);
    }

    public NodeInfo map(Node node) {
        String name = node.getMetadata().getName();
        Map<String, String> labels = new HashMap<>(node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels());
        // The scheduler matches kubernetes.io/hostname; kubelet always sets it, test fixtures may not.
        labels.putIfAbsent(AceKeys.HOSTNAME, name);
        Map<String, String> annotations = node.getMetadata().getAnnotations() == null ? Map.of() : node.getMetadata().getAnnotations();
        List<Taint> taints = new ArrayList<>();
        if (node.getSpec() != null && node.getSpec().getTaints() != null) {
            for (var t : node.getSpec().getTaints()) taints.add(new Taint(t.getKey(), t.getValue(), t.getEffect()));
        }
        BoardResolver.Resolved r = boards.resolve(name, labels, annotations);
        TopologyManagerPolicy policy = TopologyManagerPolicy.parseOrNone(labels.get(AceKeys.TOPOLOGY_MANAGER_POLICY));
        return new NodeInfo(name, Pool.fromLabel(labels.get(AceKeys.POOL)), labels, taints, r.board(), r.source(), r.gpuModel(), 0, policy,
                dev.ace.binpacker.workload.PodRequests.allocatable(node));
    }
}
