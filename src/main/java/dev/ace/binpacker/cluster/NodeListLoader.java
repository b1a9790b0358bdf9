package dev.ace.binpacker.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads Node objects from a YAML or JSON {@code kind: List} (what {@code kubectl get nodes -o yaml} prints), or one Node. */
public final class NodeListLoader {
    /** The embedded demo inventory, a copy of {@code k8s/demo/nodes.yaml}. */
    public static final String DEMO_RESOURCE = "/demo/nodes.yaml";

    private NodeListLoader() {}

    public static List<Node> load(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return parse(in, file.toString());
        }
    }

    public static List<Node> demo() throws IOException {
        try (InputStream in = NodeListLoader.class.getResourceAsStream(DEMO_RESOURCE)) {
            if (in == null) throw new IOException("embedded demo inventory " + DEMO_RESOURCE + " is missing from the build");
            return parse(in, DEMO_RESOURCE);
        }
    }

    static List<Node> parse(InputStream in, String what) throws IOException {
        Object o;
        try {
            o = new KubernetesSerialization().unmarshal(in);
        } catch (RuntimeException e) {
            throw new IOException(what + ": not a Kubernetes YAML/JSON document: " + e.getMessage(), e);
        }
        List<Node> nodes = new ArrayList<>();
        if (o instanceof Node n) {
            nodes.add(n);
        } else if (o instanceof KubernetesList l) {
            for (HasMetadata item : l.getItems()) {
                if (item instanceof Node n) nodes.add(n);
            }
        } else if (o instanceof List<?> l) {
            for (Object item : l) if (item instanceof Node n) nodes.add(n);
        } else {
            throw new IOException(what + ": expected a List of Node objects, got " + (o == null ? "nothing" : o.getClass().getSimpleName()));
        }
        return nodes;
    }
}
