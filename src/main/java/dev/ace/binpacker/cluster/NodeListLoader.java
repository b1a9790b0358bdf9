package dev.ace.binpacker.cluster;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.BufferedInputStream;
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

    /** Largest input read: far above the ~60 MiB of 12,500 annotated nodes, well below a heap. */
    static final int MAX_CODE_POINTS = 512 * 1024 * 1024;

    // JSON is YAML: one reader takes both (and multi-document YAML).
    private static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder()
            .loaderOptions(loaderOptions()).build());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final KubernetesSerialization K8S = new KubernetesSerialization();

    private NodeListLoader() {}

    private static org.yaml.snakeyaml.LoaderOptions loaderOptions() {
        org.yaml.snakeyaml.LoaderOptions o = new org.yaml.snakeyaml.LoaderOptions();
        o.setCodePointLimit(MAX_CODE_POINTS);
        return o;
    }

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

    /**
     * Every Node of the input: a {@code kind: List} (what {@code kubectl get nodes -o yaml|json}
     * prints), one Node, or several YAML documents. YAML is read with a raised code-point limit:
     * snakeyaml refuses documents over 3 MiB by default, and 12,500 nodes with topology
     * annotations are about 60 MiB.
     */
    static List<Node> parse(InputStream in, String what) throws IOException {
        List<JsonNode> docs = new ArrayList<>();
        BufferedInputStream buffered = new BufferedInputStream(in, 1 << 16);
        ObjectMapper reader = looksLikeJson(buffered) ? JSON : YAML;
        try (MappingIterator<JsonNode> it = reader.readerFor(JsonNode.class).readValues(buffered)) {
            while (it.hasNextValue()) {
                JsonNode d = it.nextValue();
                if (d != null && !d.isNull() && !d.isMissingNode()) docs.add(d);
            }
        } catch (JacksonException | RuntimeException e) {
            throw new IOException(what + ": not a Kubernetes YAML/JSON document: " + e.getMessage(), e);
        }
        if (docs.isEmpty()) throw new IOException(what + ": expected a List of Node objects, got nothing");
        List<Node> nodes = new ArrayList<>();
        for (JsonNode d : docs) collect(d, what, nodes);
        return nodes;
    }

    /** JSON is YAML too, but Jackson's JSON parser reads 60 MiB several times faster than snakeyaml. */
    private static boolean looksLikeJson(BufferedInputStream in) throws IOException {
        in.mark(4096);
        try {
            for (int i = 0, b; i < 4096 && (b = in.read()) >= 0; i++) {
                if (!Character.isWhitespace(b)) return b == '{' || b == '[';
            }
            return false;
        } finally {
            in.reset();
        }
    }

    private static void collect(JsonNode doc, String what, List<Node> nodes) throws IOException {
        if (doc.isArray()) {
            for (JsonNode item : doc) collect(item, what, nodes);
            return;
        }
        String kind = doc.path("kind").asText("");
        if (kind.equals("Node")) {
            nodes.add(K8S.convertValue(doc, Node.class));
        } else if (doc.has("items") && doc.get("items").isArray()) {
            for (JsonNode item : doc.get("items")) {
                if (item.path("kind").asText("Node").equals("Node")) nodes.add(K8S.convertValue(item, Node.class));
            }
        } else {
            throw new IOException(what + ": expected a List of Node objects, got " + (kind.isEmpty() ? "a document without kind" : kind));
        }
    }
}
