package dev.ace.binpacker.cluster.node;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads Node objects from YAML or JSON: a {@code kind: List} (what {@code kubectl get nodes -o yaml}
 * prints), single Nodes, several documents. Only the fields ACE reads are kept (name, labels,
 * annotations, taints, unschedulable, capacity and allocatable), copied from the JSON tree: binding
 * the whole Node model (or fabric8's generic deserializer, which registers every API kind) costs a
 * CLI call about a second of class loading on a busy 2-core machine.
 */
public final class NodeListLoader {
    /** The embedded demo inventory, a copy of {@code k8s/demo/nodes.yaml}. */
    public static final String DEMO_RESOURCE = "/demo/nodes.yaml";
    /** Largest input read: far above the ~60 MiB of 12,500 annotated nodes, well below a heap. */
    static final int MAX_CODE_POINTS = 512 * 1024 * 1024;

    // snakeyaml refuses documents over 3 MiB by default; 12,500 nodes with topology annotations are ~60 MiB
    private static final YAMLFactory YAML = YAMLFactory.builder().loaderOptions(loaderOptions()).build();
    private static final ObjectMapper MAPPER = new ObjectMapper(YAML);
    private static final ObjectMapper JSON = new ObjectMapper();

    private NodeListLoader() {}

    private static org.yaml.snakeyaml.LoaderOptions loaderOptions() {
        org.yaml.snakeyaml.LoaderOptions o = new org.yaml.snakeyaml.LoaderOptions();
        o.setCodePointLimit(MAX_CODE_POINTS);
        return o;
    }

    public static List<Node> load(Path file) throws IOException {
        return parse(Files.readAllBytes(file), file.toString());
    }

    public static List<Node> demo() throws IOException {
        try (InputStream in = NodeListLoader.class.getResourceAsStream(DEMO_RESOURCE)) {
            if (in == null) throw new IOException("embedded demo inventory " + DEMO_RESOURCE + " is missing from the build");
            return parse(in.readAllBytes(), DEMO_RESOURCE);
        }
    }

    /** The Nodes of {@code bytes}; {@code what} names the source in error messages. Other kinds are an error. */
    public static List<Node> parse(byte[] bytes, String what) throws IOException {
        List<Node> nodes = new ArrayList<>();
        // JSON is YAML too, but Jackson's JSON parser reads 60 MiB several times faster than snakeyaml
        ObjectMapper reader = looksLikeJson(bytes) ? JSON : MAPPER;
        try (JsonParser parser = reader == JSON ? JSON.createParser(bytes) : YAML.createParser(bytes);
             MappingIterator<JsonNode> it = reader.readValues(parser, JsonNode.class)) {
            while (it.hasNextValue()) {
                JsonNode doc = it.nextValue();
                if (doc == null || doc.isNull() || doc.isMissingNode()) continue;
                collect(doc, what, nodes);
            }
        } catch (JsonProcessingException e) {
            throw new IOException(what + ": not a Kubernetes YAML/JSON document: " + firstLine(e.getOriginalMessage())
                    + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ")"), e);
        }
        return nodes;
    }

    private static void collect(JsonNode doc, String what, List<Node> nodes) throws IOException {
        if (doc.isArray()) {
            for (JsonNode item : doc) collect(item, what, nodes);
        } else if (doc.path("kind").asText().equals("List") || doc.path("kind").asText().equals("NodeList")) {
            // items of a list may omit their kind
            for (JsonNode item : doc.path("items")) nodes.add(node(item, what, "Node"));
        } else {
            nodes.add(node(doc, what, ""));
        }
    }

    private static boolean looksLikeJson(byte[] bytes) {
        for (byte b : bytes) {
            if (!Character.isWhitespace(b)) return b == '{' || b == '[';
        }
        return false;
    }

    private static Node node(JsonNode doc, String what, String defaultKind) throws IOException {
        String kind = doc.path("kind").asText(defaultKind);
        if (!kind.equals("Node")) {
            throw new IOException(what + ": expected Node objects (kubectl get nodes -o yaml), got "
                    + (kind.isEmpty() ? "a document without kind" : kind + " " + doc.at("/metadata/name").asText("")));
        }
        String name = doc.at("/metadata/name").asText("");
        if (name.isEmpty()) throw new IOException(what + ": a Node without metadata.name");
        ObjectMeta meta = new ObjectMeta();
        meta.setName(name);
        meta.setLabels(strings(doc.at("/metadata/labels")));
        meta.setAnnotations(strings(doc.at("/metadata/annotations")));
        NodeSpec spec = new NodeSpec();
        List<Taint> taints = new ArrayList<>();
        for (JsonNode t : doc.at("/spec/taints")) {
            taints.add(new Taint(t.path("effect").asText(null), t.path("key").asText(null), null, t.path("value").asText(null)));
        }
        spec.setTaints(taints);
        if (doc.at("/spec/unschedulable").isBoolean()) spec.setUnschedulable(doc.at("/spec/unschedulable").asBoolean());
        NodeStatus status = new NodeStatus();
        status.setCapacity(quantities(doc.at("/status/capacity")));
        status.setAllocatable(quantities(doc.at("/status/allocatable")));
        Node n = new Node();
        n.setMetadata(meta);
        n.setSpec(spec);
        n.setStatus(status);
        return n;
    }

    private static Map<String, String> strings(JsonNode o) {
        Map<String, String> m = new LinkedHashMap<>();
        o.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().isValueNode() ? e.getValue().asText() : e.getValue().toString()));
        return m;
    }

    private static Map<String, Quantity> quantities(JsonNode o) {
        Map<String, Quantity> m = new LinkedHashMap<>();
        o.fields().forEachRemaining(e -> m.put(e.getKey(), new Quantity(e.getValue().asText())));
        return m;
    }

    private static String firstLine(String s) {
        if (s == null) return "unreadable";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
