package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.ace.binpacker.cluster.controller.GroupStatus;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code kubectl kustomize deploy} and {@code webhook-config} render offline into what DESIGN promises. */
class DeployManifestsTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    static List<JsonNode> render(String dir) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder("kubectl", "kustomize", dir).redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            // Fails, never skips: CI would not notice a skipped install check (issue 16).
            throw new AssertionError("kubectl is needed to render deploy/ and webhook-config/ (kubectl kustomize): install it", e);
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

    static JsonNode named(List<JsonNode> docs, String kind, String name) {
        return docs.stream().filter(d -> kind.equals(d.path("kind").asText()) && name.equals(d.at("/metadata/name").asText())).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name));
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
    void the_ledger_is_a_cluster_scoped_gpuledger_kubectl_prints_and_ace_may_write_it_and_its_lease() throws Exception {
        List<JsonNode> docs = render("deploy");
        JsonNode crd = named(docs, "CustomResourceDefinition", "gpuledgers.ace.dev");
        assertEquals("Cluster", crd.at("/spec/scope").asText());
        JsonNode version = crd.at("/spec/versions/0");
        assertEquals("v1alpha1", version.path("name").asText());
        List<String> columns = printerColumns(version);
        assertEquals(List.of("Node", "GPUs", "Allocatable", "Free", "Held", "Pending", "Confirmed", "Foreign", "Age"), columns);
        assertEquals("[\"pending\",\"bound\"]",
                version.at("/schema/openAPIV3Schema/properties/spec/properties/entries/items/properties/state/enum").toString());
        String clusterRules = named(docs, "ClusterRole", "ace-binpacker").at("/rules").toString();
        assertTrue(clusterRules.contains("gpuledgers") && clusterRules.contains("events") && clusterRules.contains("delete"), clusterRules);
        String roles = docs.stream().filter(d -> d.path("kind").asText().equals("Role")).map(JsonNode::toString).toList().toString();
        assertTrue(roles.contains("leases"), roles);
        assertFalse(docs.toString().contains("configmaps"), "the ledger ConfigMaps and their RBAC are gone");
        JsonNode env = kind(docs, "Deployment").at("/spec/template/spec/containers/0/env");
        assertTrue(env.toString().contains("ACE_CONTROLLER_NAMESPACE"), env.toString());
    }

    @Test
    void groups_are_namespaced_acegroups_kubectl_prints_that_only_ace_writes_and_tenants_read_through_view_edit_admin() throws Exception {
        List<JsonNode> docs = render("deploy");
        JsonNode crd = named(docs, "CustomResourceDefinition", "acegroups.ace.dev");
        assertEquals("Namespaced", crd.at("/spec/scope").asText());
        JsonNode version = crd.at("/spec/versions/0");
        List<String> columns = printerColumns(version);
        assertEquals(List.of("Phase", "Size", "Seen", "Placed", "Waiting-Since", "Reason", "Age"), columns);
        List<String> phases = new ArrayList<>();
        version.at("/schema/openAPIV3Schema/properties/status/properties/phase/enum").forEach(p -> phases.add(p.asText()));
        List<String> labels = new ArrayList<>();
        for (GroupStatus.Phase p : GroupStatus.Phase.values()) labels.add(p.label());
        assertEquals(labels, phases, "the schema admits exactly the phases ACE writes");
        assertEquals(GroupStatus.MAX_REASON, version.at("/schema/openAPIV3Schema/properties/status/properties/reason/maxLength").asInt());

        JsonNode ace = named(docs, "ClusterRole", "ace-binpacker");
        boolean aceWrites = false;
        for (JsonNode r : ace.path("rules")) {
            if (r.path("resources").toString().contains("acegroups")) aceWrites = r.path("verbs").toString().contains("create") && r.path("verbs").toString().contains("delete");
        }
        assertTrue(aceWrites, "ACE's ServiceAccount creates, updates and deletes them: " + ace);
        JsonNode view = named(docs, "ClusterRole", "ace-binpacker-groups-view");
        assertEquals("[{\"apiGroups\":[\"ace.dev\"],\"resources\":[\"acegroups\"],\"verbs\":[\"get\",\"list\",\"watch\"]}]",
                view.path("rules").toString(), "tenants read, never write");
        for (String role : List.of("view", "edit", "admin")) {
            assertEquals("true", view.at("/metadata/labels").path("rbac.authorization.k8s.io/aggregate-to-" + role).asText(), role);
        }
    }

    @Test
    void webhooks_are_v1_none_on_dry_run_with_cel_match_conditions_and_exempt_namespaces_skipped() throws Exception {
        List<JsonNode> docs = render("webhook-config");
        for (String k : new String[] {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}) {
            for (JsonNode w : kind(docs, k).path("webhooks")) {
                assertEquals("[\"v1\"]", w.path("admissionReviewVersions").toString());
                assertEquals("NoneOnDryRun", w.path("sideEffects").asText());
                assertTrue(w.path("timeoutSeconds").asInt() >= 1 && w.path("timeoutSeconds").asInt() <= 30);
                assertFalse(w.path("failurePolicy").asText().isEmpty());
                assertTrue(w.at("/namespaceSelector").toString().contains("exempt"));
            }
            assertTrue(kind(docs, k).at("/webhooks/0/matchConditions/0/expression").asText().contains("nvidia.com/gpu"));
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
    void workloads_have_their_own_validating_webhooks_for_every_controller_kind_with_a_ca_injected_like_the_others() throws Exception {
        List<JsonNode> docs = render("webhook-config");
        JsonNode validating = kind(docs, "ValidatingWebhookConfiguration");
        JsonNode w = validating.at("/webhooks/1");
        assertEquals("validate-workloads.ace.dev", w.path("name").asText());
        assertEquals("/validate-workloads", w.at("/clientConfig/service/path").asText());
        assertEquals("NoneOnDryRun", w.path("sideEffects").asText());
        assertEquals("[\"CREATE\",\"UPDATE\"]", w.at("/rules/0/operations").toString());
        StringBuilder all = new StringBuilder();
        for (JsonNode hook : validating.path("webhooks")) {
            if (!hook.at("/clientConfig/service/path").asText().equals("/validate-workloads")) continue;
            all.append(hook.path("rules"));
            assertEquals("NoneOnDryRun", hook.path("sideEffects").asText(), hook.path("name").asText());
            assertTrue(hook.at("/namespaceSelector").toString().contains("exempt"), hook.path("name").asText());
            assertTrue(hook.at("/matchConditions/0/expression").asText().contains("nvidia.com/gpu"),
                    "only templates asking for GPUs reach ACE: " + hook.path("name").asText());
        }
        String rules = all.toString();
        for (String r : new String[] {"deployments", "statefulsets", "replicasets", "jobs", "cronjobs", "leaderworkersets", "leaderworkerset.x-k8s.io",
                "inferenceservices", "llminferenceservices", "rayclusters", "rayservices", "rayjobs", "jobsets", "trainjobs", "pytorchjobs",
                "workflows", "cronworkflows"}) {
            assertTrue(rules.contains("\"" + r + "\""), r + " in " + rules);
        }
        assertEquals("/validate", validating.at("/webhooks/0/clientConfig/service/path").asText(), "pod handling untouched");
        assertEquals("ace-system/ace-binpacker", validating.at("/metadata/annotations/cert-manager.io~1inject-ca-from").asText());
    }

    @Test
    void certs_sh_puts_the_ca_into_every_webhook_of_both_configurations() throws Exception {
        String script = java.nio.file.Files.readString(java.nio.file.Path.of("webhook-config/certs.sh"));
        assertFalse(script.contains("/webhooks/0/clientConfig/caBundle"), "a fixed index leaves the workloads webhook without a CA");
        assertTrue(script.contains("{range .webhooks[*]}"), "every webhook, by range (CertsScriptTest runs it)");
    }

    @Test
    void monitoring_renders_a_service_monitor_alert_rules_and_the_dashboard_and_the_base_needs_no_operator_crds() throws Exception {
        List<JsonNode> base = render("deploy");
        assertTrue(base.stream().noneMatch(d -> d.path("apiVersion").asText().startsWith("monitoring.coreos.com")), "base stays CRD-free");
        String serviceLabel = kind(base, "Service").at("/metadata/labels/app.kubernetes.io~1name").asText();

        List<JsonNode> docs = render("deploy/monitoring");
        JsonNode sm = kind(docs, "ServiceMonitor");
        assertEquals(serviceLabel, sm.at("/spec/selector/matchLabels/app.kubernetes.io~1name").asText(), "selects the ace-binpacker Service");
        assertEquals("management", sm.at("/spec/endpoints/0/port").asText());
        assertEquals(kind(base, "Service").at("/spec/ports/1/name").asText(), sm.at("/spec/endpoints/0/port").asText());
        assertEquals("/q/metrics", sm.at("/spec/endpoints/0/path").asText());
        assertEquals("ace-system", sm.at("/metadata/namespace").asText());

        List<String> alerts = new ArrayList<>();
        kind(docs, "PrometheusRule").at("/spec/groups").forEach(g -> g.path("rules").forEach(r -> alerts.add(r.path("alert").asText())));
        assertTrue(alerts.containsAll(List.of("AceNvlinkFragmentationRising", "AceTensorParallelPodsWaiting", "AceWebhookErrors",
                "AceWebhookFailingOpen", "AceWebhookNotReady")), alerts.toString());

        JsonNode cm = kind(docs, "ConfigMap");
        assertEquals("1", cm.at("/metadata/labels/grafana_dashboard").asText());
        JsonNode dashboard = new ObjectMapper().readTree(cm.at("/data/grafana-dashboard.json").asText());
        assertEquals(new ObjectMapper().readTree(new File("deploy/monitoring/grafana-dashboard.json")), dashboard);
        assertTrue(dashboard.path("panels").size() >= 10);
    }

    @Test
    void the_documented_overlay_points_the_webhook_and_the_agent_at_your_own_image(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path repo = new File(".").getCanonicalFile().toPath();
        String rel = dir.relativize(repo).toString();
        // docs/install.md, step 3
        java.nio.file.Files.writeString(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                - %1$s/deploy
                - %1$s/deploy/agent
                images:
                - name: ghcr.io/ace-dev/ace-binpacker
                  newName: registry.example.com/ml-platform/ace-binpacker
                  newTag: 0.1.0
                - name: ghcr.io/ace-dev/ace-agent
                  newName: registry.example.com/ml-platform/ace-agent
                  newTag: 0.1.0
                """.formatted(rel));
        List<JsonNode> docs = render(dir.toString());
        assertEquals("registry.example.com/ml-platform/ace-binpacker:0.1.0",
                kind(docs, "Deployment").at("/spec/template/spec/containers/0/image").asText());
        assertEquals("registry.example.com/ml-platform/ace-agent:0.1.0", kind(docs, "DaemonSet").at("/spec/template/spec/containers/0/image").asText(),
                "the agent runs its own image (agent/Dockerfile), not the webhook's");
    }

    @Test
    void agent_daemonset_runs_on_gpu_nodes_with_its_node_name_and_may_only_get_and_patch_nodes_and_write_node_reports() throws Exception {
        List<JsonNode> docs = render("deploy/agent");
        JsonNode ds = kind(docs, "DaemonSet");
        JsonNode spec = ds.at("/spec/template/spec");
        assertEquals("true", spec.at("/nodeSelector/nvidia.com~1gpu.present").asText());
        JsonNode c = spec.at("/containers/0");
        assertEquals("agent", c.at("/args/0").asText());
        assertEquals("spec.nodeName", c.at("/env/0/valueFrom/fieldRef/fieldPath").asText());
        assertEquals("NODE_NAME", c.at("/env/0/name").asText());
        assertEquals("[{\"apiGroups\":[\"\"],\"resources\":[\"nodes\"],\"verbs\":[\"get\",\"patch\"]},"
                        + "{\"apiGroups\":[\"ace.dev\"],\"resources\":[\"gpunodereports\"],\"verbs\":[\"get\",\"create\",\"patch\"]}]",
                kind(docs, "ClusterRole").at("/rules").toString());
        assertEquals("ace-system", ds.at("/metadata/namespace").asText());
        assertEquals("ace-system", kind(docs, "ClusterRoleBinding").at("/subjects/0/namespace").asText());
    }

    @Test
    void agent_mounts_the_kubelet_socket_directory_read_only_and_is_held_to_its_own_node_by_a_policy() throws Exception {
        List<JsonNode> docs = render("deploy/agent");
        JsonNode spec = kind(docs, "DaemonSet").at("/spec/template/spec");
        JsonNode mount = null;
        for (JsonNode m : spec.at("/containers/0/volumeMounts")) if (m.path("name").asText().equals("pod-resources")) mount = m;
        assertEquals("/var/lib/kubelet/pod-resources", mount.path("mountPath").asText(), "the directory, so a kubelet restart's new socket is seen");
        assertTrue(mount.path("readOnly").asBoolean());
        JsonNode volume = null;
        for (JsonNode v : spec.at("/volumes")) if (v.path("name").asText().equals("pod-resources")) volume = v;
        assertEquals("Directory", volume.at("/hostPath/type").asText());
        assertEquals("/var/lib/kubelet/pod-resources", volume.at("/hostPath/path").asText());

        JsonNode policy = kind(docs, "ValidatingAdmissionPolicy");
        assertEquals("Fail", policy.at("/spec/failurePolicy").asText());
        assertTrue(policy.at("/spec/matchConstraints/resourceRules/0/resources").toString().contains("nodes"));
        String all = policy.at("/spec").toString();
        assertTrue(all.contains("authentication.kubernetes.io/node-name"), all);
        assertTrue(all.contains("object.metadata.name == variables.nodeName"), all);
        assertTrue(all.contains("startsWith('ace.dev/')"), all);
        JsonNode binding = kind(docs, "ValidatingAdmissionPolicyBinding");
        assertEquals(policy.at("/metadata/name").asText(), binding.at("/spec/policyName").asText());
        assertEquals("[\"Deny\"]", binding.at("/spec/validationActions").toString());
        assertTrue(binding.at("/metadata/namespace").isMissingNode(), "a cluster-scoped object carries no namespace");
    }

    /** The column names {@code kubectl get} prints for a CRD version. */
    private static List<String> printerColumns(JsonNode version) {
        List<String> columns = new ArrayList<>();
        version.path("additionalPrinterColumns").forEach(c -> columns.add(c.path("name").asText()));
        return columns;
    }
}
