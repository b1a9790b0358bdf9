package dev.ace.binpacker.cli;

import dev.ace.binpacker.cluster.node.NodeListLoader;
import dev.ace.binpacker.cluster.node.NodeMapper;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeInfo;
import io.fabric8.kubernetes.api.model.Node;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/** The nodes a CLI command works on: a {@code kubectl get nodes -o yaml} file ({@code -} for stdin) or the embedded demo inventory. */
record Inventory(List<Node> nodes, List<NodeInfo> infos, String source) {
    static Inventory load(String file, InputStream stdin) throws CliException {
        List<Node> nodes;
        try {
            nodes = file == null ? NodeListLoader.demo() : NodeListLoader.parse(Inputs.read(file, stdin), file);
        } catch (IOException e) {
            throw CliException.input(e.getMessage());
        }
        if (nodes.isEmpty()) throw CliException.input((file == null ? "the demo inventory" : file) + ": no Node objects in it");
        NodeMapper mapper = NodeMapper.standard();
        return new Inventory(nodes, nodes.stream().map(mapper::map).toList(), file == null ? "the embedded demo inventory" : file);
    }

    /** A fresh cluster state holding every node, nothing reserved. */
    ClusterState state() {
        ClusterState s = new ClusterState();
        infos.forEach(s::upsert);
        return s;
    }
}
