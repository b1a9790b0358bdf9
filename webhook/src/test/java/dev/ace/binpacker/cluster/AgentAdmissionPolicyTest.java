package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.types.SimpleType;
import dev.cel.parser.CelStandardMacro;
import java.io.File;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The ValidatingAdmissionPolicy of deploy/agent, evaluated with Google's CEL the way the API server
 * does: match conditions, then variables in order, then every validation (a false or an evaluation
 * error denies under failurePolicy Fail). Kubernetes' CEL adds libraries on top of standard CEL; the
 * policy uses none of them, so standard CEL evaluates it as the API server would.
 */
class AgentAdmissionPolicyTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Cel CEL = CelFactory.standardCelBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("request", SimpleType.DYN)
            .addVar("object", SimpleType.DYN)
            .addVar("oldObject", SimpleType.DYN)
            .addVar("variables", SimpleType.DYN)
            .build();
    private static JsonNode policy;

    @BeforeAll
    static void load() throws Exception {
        try (YAMLParser p = new YAMLFactory().createParser(new File("deploy/agent/admission-policy.yaml"))) {
            policy = YAML.readValues(p, JsonNode.class).readAll().stream()
                    .filter(d -> d.path("kind").asText().equals("ValidatingAdmissionPolicy")).findFirst().orElseThrow().path("spec");
        }
    }

    /** Empty when admitted (or the policy does not apply), else the message of the first failing validation. */
    static Optional<String> evaluate(Map<String, Object> request, Map<String, Object> object, Map<String, Object> oldObject) throws Exception {
        Map<String, Object> vars = new HashMap<>();
        vars.put("request", request);
        vars.put("object", object);
        vars.put("oldObject", oldObject);
        Map<String, Object> variables = new LinkedHashMap<>();
        vars.put("variables", variables);
        for (JsonNode c : policy.path("matchConditions")) {
            if (!Boolean.TRUE.equals(eval(c.path("expression").asText(), vars))) return Optional.empty();
        }
        for (JsonNode v : policy.path("variables")) {
            try {
                variables.put(v.path("name").asText(), eval(v.path("expression").asText(), vars));
            } catch (Exception e) {
                // the API server evaluates variables lazily: one that cannot be computed only fails the validations using it
            }
        }
        for (JsonNode v : policy.path("validations")) {
            Object ok;
            try {
                ok = eval(v.path("expression").asText(), vars);
            } catch (Exception e) {
                ok = false;
            }
            if (!Boolean.TRUE.equals(ok)) {
                if (v.has("messageExpression")) return Optional.of(String.valueOf(eval(v.path("messageExpression").asText(), vars)));
                return Optional.of(v.path("message").asText());
            }
        }
        return Optional.empty();
    }

    private static Object eval(String expression, Map<String, Object> vars) throws Exception {
        return CEL.createProgram(CEL.compile(expression).getAst()).eval(vars);
    }

    private static Map<String, Object> node(String name, Map<String, String> labels, Map<String, String> annotations, Object taints) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("name", name);
        meta.put("labels", labels);
        meta.put("annotations", annotations);
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("taints", taints);
        return Map.of("metadata", meta, "spec", spec);
    }

    private static Map<String, Object> agentOn(String nodeName, String operation) {
        Map<String, Object> extra = nodeName == null ? Map.of() : Map.of("authentication.kubernetes.io/node-name", List.of(nodeName));
        // As the API server sends it for a patch of the Node itself: no subResource key at all (not "").
        return Map.of("operation", operation,
                "userInfo", Map.of("username", "system:serviceaccount:ace-system:ace-agent", "extra", extra));
    }

    private static final Map<String, String> LABELS = Map.of("kubernetes.io/hostname", "gpu-1", "nvidia.com/gpu.present", "true");
    private static final Map<String, String> ANNOTATIONS = Map.of("node.alpha.kubernetes.io/ttl", "0");
    private static final List<Object> TAINTS = List.of(Map.of("key", "nvidia.com/gpu", "effect", "NoSchedule"));

    private static Map<String, String> with(Map<String, String> m, String k, String v) {
        Map<String, String> out = new HashMap<>(m);
        if (v == null) out.remove(k);
        else out.put(k, v);
        return out;
    }

    @Test
    @DisplayName("The agent on gpu-1 may write ace.dev/ labels and annotations on Node gpu-1")
    void ownNodeAceKeysAllowed() throws Exception {
        var old = node("gpu-1", LABELS, ANNOTATIONS, TAINTS);
        var updated = node("gpu-1", with(LABELS, "ace.dev/topology-manager-policy", "single-numa-node"),
                with(ANNOTATIONS, "ace.dev/gpu-allocation", "{\"generation\":1}"), TAINTS);
        assertEquals(Optional.empty(), evaluate(agentOn("gpu-1", "UPDATE"), updated, old));
    }

    @Test
    @DisplayName("The agent on gpu-1 may not touch Node gpu-2, nor other labels, annotations or the spec of its own")
    void everythingElseDenied() throws Exception {
        var old2 = node("gpu-2", LABELS, ANNOTATIONS, TAINTS);
        var new2 = node("gpu-2", LABELS, with(ANNOTATIONS, "ace.dev/gpu-allocation", "{}"), TAINTS);
        assertEquals(Optional.of("the ACE node agent on gpu-1 may only change its own Node, not gpu-2"), evaluate(agentOn("gpu-1", "UPDATE"), new2, old2));
        var old = node("gpu-1", LABELS, ANNOTATIONS, TAINTS);
        assertTrue(evaluate(agentOn("gpu-1", "UPDATE"), node("gpu-1", with(LABELS, "nvidia.com/gpu.present", "false"), ANNOTATIONS, TAINTS), old)
                .orElseThrow().contains("ace.dev/ labels"));
        assertTrue(evaluate(agentOn("gpu-1", "UPDATE"), node("gpu-1", LABELS, with(ANNOTATIONS, "node.alpha.kubernetes.io/ttl", null), TAINTS), old)
                .orElseThrow().contains("ace.dev/ annotations"));
        assertTrue(evaluate(agentOn("gpu-1", "UPDATE"), node("gpu-1", LABELS, ANNOTATIONS, List.of()), old)
                .orElseThrow().contains("spec"));
    }

    @Test
    @DisplayName("A token without a node name, a DELETE, or a status write is denied; other users are not this policy's business")
    void tokensOperationsAndOtherUsers() throws Exception {
        var old = node("gpu-1", LABELS, ANNOTATIONS, TAINTS);
        var updated = node("gpu-1", LABELS, with(ANNOTATIONS, "ace.dev/gpu-allocation", "{}"), TAINTS);
        assertTrue(evaluate(agentOn(null, "UPDATE"), updated, old).orElseThrow().contains("names no node"));
        assertTrue(evaluate(agentOn("gpu-1", "DELETE"), null, old).orElseThrow().contains("never create, delete"));
        Map<String, Object> status = new HashMap<>(agentOn("gpu-1", "UPDATE"));
        status.put("subResource", "status");
        assertTrue(evaluate(status, updated, old).isPresent());
        Map<String, Object> kubelet = Map.of("operation", "UPDATE", "subResource", "",
                "userInfo", Map.of("username", "system:node:gpu-1", "extra", Map.of()));
        assertEquals(Optional.empty(), evaluate(kubelet, node("gpu-1", with(LABELS, "x", "y"), ANNOTATIONS, List.of()), old));
    }
}
