package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.ace.binpacker.admission.Json;
import dev.ace.binpacker.workload.GpuCount;
import dev.ace.binpacker.workload.WorkloadPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The workloads webhooks' matchConditions (webhook-config/validating.yaml), evaluated as the API server
 * would on the real controller manifests of tests/workloads: an object reaches ACE exactly when a pod its
 * controller would make asks for whole GPUs, and every kind ACE reads has a webhook whose rules name it.
 */
class WorkloadMatchConditionsTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private final ObjectMapper json = Json.newMapper();

    @Test
    void only_objects_whose_pod_templates_ask_for_gpus_reach_ace_and_every_read_kind_has_a_rule() throws Exception {
        List<JsonNode> hooks = new ArrayList<>();
        for (JsonNode w : Cel.documents(Path.of("webhook-config", "validating.yaml")).get(0).path("webhooks")) {
            if (w.at("/clientConfig/service/path").asText().equals("/validate-workloads")) hooks.add(w);
        }
        int gpuObjects = 0, others = 0;
        List<Path> files;
        try (Stream<Path> s = Files.list(Path.of("tests", "workloads"))) {
            files = s.filter(p -> p.toString().endsWith(".yaml") && !p.endsWith("nodes.yaml")).sorted().toList();
        }
        for (Path f : files) {
            try (var it = YAML.readValues(YAML.getFactory().createParser(f.toFile()), JsonNode.class)) {
                while (it.hasNextValue()) {
                    JsonNode doc = it.nextValue();
                    String kind = doc.path("kind").asText();
                    if (!WorkloadPods.isWorkload(kind)) continue;
                    JsonNode hook = hookFor(hooks, doc);
                    boolean gpus = WorkloadPods.of(doc, json).stream().anyMatch(t -> GpuCount.held(t.pod().getSpec()) > 0);
                    Object reaches = Cel.eval(hook.at("/matchConditions/0/expression").asText(), Map.of("object", Cel.value(doc)));
                    assertEquals(gpus, reaches, f.getFileName() + " " + kind + " through " + hook.path("name").asText());
                    if (gpus) gpuObjects++; else others++;
                }
            }
        }
        assertTrue(gpuObjects >= 8 && others >= 3, gpuObjects + " GPU objects, " + others + " without GPUs");
        for (String kind : WorkloadPods.KINDS.keySet()) {
            String plural = plural(kind);
            assertTrue(hooks.stream().anyMatch(h -> h.path("rules").toString().contains("\"" + plural + "\"")
                    && h.path("rules").toString().contains("\"" + WorkloadPods.KINDS.get(kind) + "\"")), kind + " (" + plural + ") has a rule");
        }
    }

    private static String plural(String kind) {
        String k = kind.toLowerCase(java.util.Locale.ROOT);
        return k + "s";
    }

    private static JsonNode hookFor(List<JsonNode> hooks, JsonNode doc) {
        String apiVersion = doc.path("apiVersion").asText();
        String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
        for (JsonNode h : hooks) {
            for (JsonNode r : h.path("rules")) {
                for (JsonNode g : r.path("apiGroups")) if (g.asText().equals(group)) return h;
            }
        }
        throw new AssertionError("no workloads webhook for API group " + group);
    }
}
