package dev.ace.binpacker.cluster;

import dev.ace.binpacker.cluster.node.NodeListLoader;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;

/** Demo inventory nodes as a real cluster shows them: with the allocatable GPUs the device plugin registered. */
public final class TestNodes {
    private TestNodes() {}

    public static Node node(String name, int allocatable) {
        try {
            Node n = NodeListLoader.demo().stream().filter(x -> x.getMetadata().getName().equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no demo node " + name));
            return withAllocatable(n, allocatable);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A copy of demo node hgx-h100-0 (8x H100, NVSwitch, pool inference) under another name. */
    static Node hgx(String name, int allocatable) {
        Node n = node("hgx-h100-0", allocatable);
        n.getMetadata().setName(name);
        var labels = new java.util.HashMap<>(n.getMetadata().getLabels());
        labels.put(AceKeys.HOSTNAME, name);
        n.getMetadata().setLabels(labels);
        return n;
    }

    static Node withAllocatable(Node n, int gpus) {
        if (n.getStatus() == null) n.setStatus(new NodeStatus());
        // as a kubelet reports it: every real node offers cpu, memory and a pod count (fit before pin reads all three)
        n.getStatus().setAllocatable(Map.of(AceKeys.GPU, new Quantity(Integer.toString(gpus)), "cpu", new Quantity("192"),
                "memory", new Quantity("2Ti"), "pods", new Quantity("110")));
        return n;
    }
}
