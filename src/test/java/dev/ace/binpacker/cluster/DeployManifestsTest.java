package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** {@code kubectl kustomize deploy} and {@code webhook-config} render offline into what DESIGN promises. */
class DeployManifestsTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    static List<JsonNode> render(String dir) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder("kubectl", "kustomize", dir).redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            Assumptions.abort("kubectl is not installed: " + e.getMessage());
            return List.of();
        }
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), new String(out, StandardCharsets.UTF_8));
        List<JsonNode> docs = new ArrayList<>();
        try (YAMLParser parser = new YAMLFactory().createParser(out)) {
            var it = YAML.readValues(parser, JsonNode.class);
            while (it.hasNext()) docs.add(it.next());
        }
        return docs;
    }

    static JsonNode kind(List<JsonNode> docs, String kind) {
        return docs.stream().filter(d -> kind.equals(d.path("kind").asText())).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind));
    }

    @Test
    void deploy_renders_two_replicas_probed_on_the_management_port_behind_443() throws Exception {
        assertTrue(new File("deploy/kustomization.yaml").exists());
        List<JsonNode> docs = render("deploy");
        JsonNode deployment = kind(docs, "Deployment");
        assertEquals(2, deployment.at("/spec/replicas").asInt());
        JsonNode c = deployment.at("/spec/template/spec/containers/0");
        assertEquals("management", c.at("/readinessProbe/httpGet/port").asText());
        assertEquals("/q/health/ready", c.at("/readinessProbe/httpGet/path").asText());
        assertEquals(9000, c.at("/ports/1/containerPort").asInt());
        JsonNode svc = kind(docs, "Service");
        assertEquals(443, svc.at("/spec/ports/0/port").asInt());
        assertEquals("https", svc.at("/spec/ports/0/targetPort").asText());
        assertEquals(1, kind(docs, "PodDisruptionBudget").at("/spec/minAvailable").asInt());
        String rules = kind(docs, "ClusterRole").at("/rules").toString();
        assertTrue(rules.contains("patch") && rules.contains("watch") && rules.contains("namespaces"), rules);
    }

    @Test
    void webhooks_are_v1_none_on_dry_run_with_cel_match_conditions_and_exempt_namespaces_skipped() throws Exception {
        List<JsonNode> docs = render("webhook-config");
        for (String k : new String[] {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}) {
            JsonNode w = kind(docs, k).at("/webhooks/0");
            assertEquals("[\"v1\"]", w.path("admissionReviewVersions").toString());
            assertEquals("NoneOnDryRun", w.path("sideEffects").asText());
            assertTrue(w.path("timeoutSeconds").asInt() >= 1 && w.path("timeoutSeconds").asInt() <= 30);
            assertFalse(w.path("failurePolicy").asText().isEmpty());
            assertTrue(w.at("/matchConditions/0/expression").asText().contains("nvidia.com/gpu"));
            assertTrue(w.at("/namespaceSelector").toString().contains("exempt"));
        }
        List<String> policies = docs.stream().filter(d -> "ValidatingAdmissionPolicy".equals(d.path("kind").asText()))
                .map(d -> d.at("/metadata/name").asText()).sorted().toList();
        assertEquals(List.of("ace-guard-pod-outputs", "ace-guard-policy-exempt"), policies);
    }

    @Test
    void the_optional_networkpolicy_admits_only_the_api_servers_addresses_to_the_webhook_port() throws Exception {
        java.nio.file.Path overlay = java.nio.file.Path.of("target", "networkpolicy-overlay");
        java.nio.file.Files.createDirectories(overlay);
        java.nio.file.Files.writeString(overlay.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources: [../../deploy]
                components: [../../deploy/networkpolicy]
                """);
        List<JsonNode> docs = render(overlay.toString());
        JsonNode np = kind(docs, "NetworkPolicy");
        assertEquals("ace-system", np.at("/metadata/namespace").asText());
        assertEquals(kind(docs, "Deployment").at("/spec/template/metadata/labels/app").asText(), np.at("/spec/podSelector/matchLabels/app").asText());
        JsonNode webhook = np.at("/spec/ingress/0");
        assertEquals(8443, webhook.at("/ports/0/port").asInt());
        assertTrue(webhook.path("from").size() > 0, "some sources, never everyone");
        webhook.path("from").forEach(f -> assertTrue(f.at("/ipBlock/cidr").asText().contains("/"), f.toString()));
        JsonNode management = np.at("/spec/ingress/1");
        assertEquals(9000, management.at("/ports/0/port").asInt());
        assertTrue(management.path("from").isMissingNode(), "probes and metrics from anywhere");
        assertFalse(render("deploy").stream().anyMatch(d -> "NetworkPolicy".equals(d.path("kind").asText())),
                "off unless enabled: a wrong address list would cut the API server off");
    }

    @Test
    void agent_daemonset_runs_on_gpu_nodes_with_its_node_name_and_may_only_get_and_patch_nodes() throws Exception {
        List<JsonNode> docs = render("deploy/agent");
        JsonNode ds = kind(docs, "DaemonSet");
        JsonNode spec = ds.at("/spec/template/spec");
        assertEquals("true", spec.at("/nodeSelector/nvidia.com~1gpu.present").asText());
        JsonNode c = spec.at("/containers/0");
        assertEquals("agent", c.at("/args/0").asText());
        assertEquals("spec.nodeName", c.at("/env/0/valueFrom/fieldRef/fieldPath").asText());
        assertEquals("NODE_NAME", c.at("/env/0/name").asText());
        assertEquals("[{\"apiGroups\":[\"\"],\"resources\":[\"nodes\"],\"verbs\":[\"get\",\"patch\"]}]",
                kind(docs, "ClusterRole").at("/rules").toString());
        assertEquals("ace-system", ds.at("/metadata/namespace").asText());
    }
}
