package dev.ace.binpacker.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Helm chart rendered by Helm's own code (helm-java: the Go library through JNA, no helm binary),
 * and the comparison of rendered objects with the kustomize install's, field for field.
 */
final class ChartRender {
    static final Path CHART = Path.of("deploy/helm/ace-binpacker");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private ChartRender() {}

    /**
     * {@code helm template ace deploy/helm/ace-binpacker -n NAMESPACE --set k=v ...}. helm-java's template
     * reaches for a cluster on {@code lookup}, so the render turns the read-back of an existing Secret off
     * unless a test sets it.
     */
    static List<JsonNode> renderIn(String namespace, String... sets) throws IOException {
        TemplateCommand t = new Helm(CHART).template().withName("ace").withNamespace(namespace)
                .set("certificates.reuseExisting", "false");
        for (int i = 0; i + 1 < sets.length; i += 2) t = t.set(sets[i], sets[i + 1]);
        return parse(t.call().getBytes(StandardCharsets.UTF_8));
    }

    static List<JsonNode> render(String... sets) throws IOException { return renderIn("ace-system", sets); }

    static List<JsonNode> parse(byte[] yaml) throws IOException {
        List<JsonNode> docs = new ArrayList<>();
        try (YAMLParser parser = new YAMLFactory().createParser(yaml)) {
            var it = YAML.readValues(parser, JsonNode.class);
            while (it.hasNext()) {
                JsonNode d = it.next();
                if (d != null && d.isObject() && d.has("kind")) docs.add(d);
            }
        }
        return docs;
    }

    static List<JsonNode> file(String path) throws IOException { return parse(Files.readAllBytes(Path.of(path))); }

    /** kind/namespace/name, the identity of an object in a cluster. */
    static String key(JsonNode d) {
        return d.path("kind").asText() + "/" + d.at("/metadata/namespace").asText("") + "/" + d.at("/metadata/name").asText();
    }

    static Map<String, JsonNode> byKey(List<JsonNode> docs) {
        Map<String, JsonNode> m = new LinkedHashMap<>();
        for (JsonNode d : docs) m.put(key(d), normalised(d));
        return m;
    }

    /**
     * What is allowed to differ between the two installs: labels (Helm adds its own), Helm's resource policy,
     * the caBundle (the chart may fill it, kustomize leaves it to certs.sh or cainjector), and runs of whitespace
     * in CEL expressions (kustomize re-emits a folded scalar's more-indented lines with a blank line; CEL ignores it).
     */
    static JsonNode normalised(JsonNode d) {
        ObjectNode c = d.deepCopy();
        ObjectNode meta = (ObjectNode) c.path("metadata");
        meta.remove("labels");
        if (meta.path("annotations").isObject()) {
            ((ObjectNode) meta.path("annotations")).remove("helm.sh/resource-policy");
            if (meta.path("annotations").isEmpty()) meta.remove("annotations");
        }
        if (c.path("webhooks").isArray()) {
            for (JsonNode w : (ArrayNode) c.path("webhooks")) ((ObjectNode) w.path("clientConfig")).remove("caBundle");
        }
        collapseCel(c);
        return c;
    }

    private static void collapseCel(JsonNode n) {
        if (n.isObject()) {
            ObjectNode o = (ObjectNode) n;
            for (String k : List.of("expression", "messageExpression")) {
                if (o.path(k).isTextual()) o.put(k, o.path(k).asText().replaceAll("\\s+", " ").strip());
            }
            o.elements().forEachRemaining(ChartRender::collapseCel);
        } else if (n.isArray()) {
            n.elements().forEachRemaining(ChartRender::collapseCel);
        }
    }
}
