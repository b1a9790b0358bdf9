package dev.ace.binpacker.cluster;

import static dev.ace.binpacker.cluster.ChartRender.byKey;
import static dev.ace.binpacker.cluster.ChartRender.render;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * deploy/helm/ace-binpacker renders what the kustomize install renders: the same objects, compared whole
 * (labels and the caBundle aside), for the base, the certificates, the agent on each platform, monitoring
 * and the NetworkPolicy; and its own values (rollout modes, mutual TLS, the release namespace) land where
 * ACE reads them.
 */
class HelmChartTest {
    private static List<JsonNode> kustomize(String dir) throws Exception { return DeployManifestsTest.render(dir); }

    private static List<JsonNode> of(List<JsonNode> docs, String kind) {
        return docs.stream().filter(d -> kind.equals(d.path("kind").asText())).toList();
    }

    private static void assertSameObjects(Map<String, JsonNode> expected, Map<String, JsonNode> actual) {
        assertEquals(new TreeSet<>(expected.keySet()), new TreeSet<>(actual.keySet()), "the same objects");
        for (var e : expected.entrySet()) {
            assertEquals(e.getValue(), actual.get(e.getKey()), () -> e.getKey() + " differs at " + firstDifference("", e.getValue(), actual.get(e.getKey())));
        }
    }

    /** The JSON pointer of the first field where two trees differ, with both values: what a reviewer needs to see. */
    static String firstDifference(String at, JsonNode a, JsonNode b) {
        if (a.equals(b)) return null;
        if (a.isObject() && b.isObject()) {
            TreeSet<String> names = new TreeSet<>();
            a.fieldNames().forEachRemaining(names::add);
            b.fieldNames().forEachRemaining(names::add);
            for (String n : names) {
                if (!a.has(n) || !b.has(n)) return at + "/" + n + ": " + a.get(n) + " vs " + b.get(n);
                String d = firstDifference(at + "/" + n, a.get(n), b.get(n));
                if (d != null) return d;
            }
        }
        if (a.isArray() && b.isArray() && a.size() == b.size()) {
            for (int i = 0; i < a.size(); i++) {
                String d = firstDifference(at + "/" + i, a.get(i), b.get(i));
                if (d != null) return d;
            }
        }
        String x = a.toString(), y = b.toString();
        return at + ": " + (x.length() > 300 ? x.substring(0, 300) + "..." : x) + " vs " + (y.length() > 300 ? y.substring(0, 300) + "..." : y);
    }

    private static List<JsonNode> without(List<JsonNode> docs, String kind) {
        return docs.stream().filter(d -> !kind.equals(d.path("kind").asText())).toList();
    }

    @Test
    void with_cert_manager_the_chart_renders_exactly_deploy_webhook_config_and_its_certificate_chain() throws Exception {
        List<JsonNode> expected = new ArrayList<>(kustomize("deploy"));
        expected.addAll(kustomize("webhook-config"));
        expected.addAll(ChartRender.file("webhook-config/cert-manager.yaml"));
        // helm install -n ace-system --create-namespace makes the namespace; the webhooks exclude it by name.
        expected = without(expected, "Namespace");
        List<JsonNode> chart = render("certificates.mode", "cert-manager");
        assertSameObjects(byKey(expected), byKey(chart));
    }

    @Test
    void by_default_the_chart_makes_a_ca_whose_certificate_every_webhook_trusts_and_nothing_else_differs() throws Exception {
        List<JsonNode> chart = render();
        List<JsonNode> expected = new ArrayList<>(without(kustomize("deploy"), "Namespace"));
        expected.addAll(kustomize("webhook-config"));
        Map<String, JsonNode> actual = new java.util.HashMap<>(byKey(chart));
        JsonNode secret = actual.remove("Secret/ace-system/ace-binpacker-tls");
        assertEquals("kubernetes.io/tls", secret.path("type").asText());
        // kustomize's webhook configurations carry cert-manager's annotation whichever path is taken; helm mode has none.
        Map<String, JsonNode> want = byKey(expected);
        for (String k : List.of("MutatingWebhookConfiguration//ace-binpacker", "ValidatingWebhookConfiguration//ace-binpacker")) {
            ((com.fasterxml.jackson.databind.node.ObjectNode) want.get(k).path("metadata")).remove("annotations");
        }
        assertSameObjects(want, actual);

        CertificateFactory x509 = CertificateFactory.getInstance("X.509");
        byte[] caPem = Base64.getDecoder().decode(secret.at("/data/ca.crt").asText());
        X509Certificate ca = (X509Certificate) x509.generateCertificate(new ByteArrayInputStream(caPem));
        X509Certificate leaf = (X509Certificate) x509.generateCertificate(new ByteArrayInputStream(
                Base64.getDecoder().decode(secret.at("/data/tls.crt").asText())));
        leaf.verify(ca.getPublicKey());
        assertTrue(leaf.getSubjectAlternativeNames().toString().contains("ace-binpacker.ace-system.svc"), leaf.getSubjectAlternativeNames().toString());
        int webhooks = 0;
        for (String kind : List.of("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")) {
            for (JsonNode w : of(chart, kind).get(0).path("webhooks")) {
                assertEquals(secret.at("/data/ca.crt").asText(), w.at("/clientConfig/caBundle").asText(), w.path("name").asText());
                webhooks++;
            }
        }
        assertEquals(9, webhooks, "mutate, validate and the seven workload webhooks (one per API group)");
    }

    @Test
    void external_certificates_leave_the_ca_bundle_alone_unless_one_is_given() throws Exception {
        for (JsonNode w : of(render("certificates.mode", "external"), "ValidatingWebhookConfiguration").get(0).path("webhooks")) {
            assertTrue(w.at("/clientConfig/caBundle").isMissingNode(), "certs.sh's caBundle survives helm upgrade: " + w);
        }
        for (JsonNode w : of(render("certificates.mode", "external", "certificates.caBundle", "Q0E="), "MutatingWebhookConfiguration").get(0).path("webhooks")) {
            assertEquals("Q0E=", w.at("/clientConfig/caBundle").asText());
        }
        assertTrue(of(render("certificates.mode", "external"), "Secret").isEmpty(), "the Secret is yours (certs.sh)");
    }

    @Test
    void the_agent_on_kubeadm_gke_and_eks_is_the_kustomize_agent_with_its_platform_component() throws Exception {
        Path overlays = Path.of("target", "agent-platforms");
        for (String platform : List.of("kubeadm", "gke", "eks")) {
            Path dir = overlays.resolve(platform);
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("kustomization.yaml"), """
                    apiVersion: kustomize.config.k8s.io/v1beta1
                    kind: Kustomization
                    resources: [../../../deploy/agent]
                    """ + (platform.equals("kubeadm") ? "" : "components: [../../../deploy/agent/platforms/" + platform + "]\n"));
            Map<String, JsonNode> expected = byKey(kustomize(dir.toString()));
            Map<String, JsonNode> chart = byKey(render("agent.enabled", "true", "agent.platform", platform));
            chart.keySet().retainAll(expected.keySet());
            assertSameObjects(expected, chart);
        }
        JsonNode eks = of(render("agent.enabled", "true", "agent.platform", "eks"), "DaemonSet").get(0).at("/spec/template/spec");
        assertTrue(eks.path("runtimeClassName").isMissingNode(), "the accelerated AMI's default runtime is nvidia");
        assertTrue(eks.toString().contains("/etc/kubernetes/kubelet/kubelet-config.json"), eks.toString());
    }

    @Test
    void agent_values_override_the_platform_and_dash_means_none() throws Exception {
        JsonNode spec = of(render("agent.enabled", "true", "agent.kubeletConfigPath", "-", "agent.runtimeClassName", "-",
                "agent.topologyManagerPolicy", "single-numa-node"), "DaemonSet").get(0).at("/spec/template/spec");
        assertTrue(spec.path("runtimeClassName").isMissingNode());
        assertFalse(spec.toString().contains("kubelet-config"), "no kubelet config mounted: " + spec);
        assertTrue(spec.at("/containers/0/args").toString().contains("\"--topology-manager-policy\",\"single-numa-node\""), spec.toString());
        assertTrue(of(render(), "DaemonSet").isEmpty(), "the agent is optional");
    }

    @Test
    void monitoring_values_render_deploy_monitoring() throws Exception {
        Map<String, JsonNode> chart = byKey(render("monitoring.serviceMonitor.enabled", "true", "monitoring.prometheusRule.enabled", "true",
                "monitoring.dashboard.enabled", "true"));
        Map<String, JsonNode> expected = byKey(kustomize("deploy/monitoring"));
        chart.keySet().retainAll(expected.keySet());
        assertSameObjects(expected, chart);
        assertTrue(of(render(), "ServiceMonitor").isEmpty(), "no Prometheus operator CRDs needed by default");
    }

    @Test
    void the_network_policy_is_the_kustomize_component_and_refuses_to_render_without_addresses() throws Exception {
        Path overlay = Path.of("target", "networkpolicy-overlay");
        Files.createDirectories(overlay);
        Files.writeString(overlay.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources: [../../deploy]
                components: [../../deploy/networkpolicy]
                """);
        JsonNode expected = byKey(kustomize(overlay.toString())).get("NetworkPolicy/ace-system/ace-binpacker");
        JsonNode chart = byKey(render("networkPolicy.enabled", "true", "networkPolicy.apiServerCidrs[0]", "192.0.2.10/32",
                "networkPolicy.apiServerCidrs[1]", "192.0.2.11/32", "networkPolicy.apiServerCidrs[2]", "192.0.2.12/32"))
                .get("NetworkPolicy/ace-system/ace-binpacker");
        assertEquals(expected, chart);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> render("networkPolicy.enabled", "true"));
        assertTrue(e.getMessage().contains("networkPolicy.apiServerCidrs"), e.getMessage());
    }

    @Test
    void the_rollout_values_reach_ace_as_its_environment_and_an_unknown_mode_is_refused_at_render() throws Exception {
        JsonNode env = of(render("policy.defaultMode", "observe", "policy.observeOnly", "true"), "Deployment").get(0)
                .at("/spec/template/spec/containers/0/env");
        assertTrue(env.toString().contains("{\"name\":\"ACE_POLICY_DEFAULT_MODE\",\"value\":\"observe\"}"), env.toString());
        assertTrue(env.toString().contains("{\"name\":\"ACE_POLICY_OBSERVE_ONLY\",\"value\":\"true\"}"), env.toString());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> render("policy.defaultMode", "relaxed"));
        assertTrue(e.getMessage().contains("policy.defaultMode") || e.getMessage().contains("defaultMode"), e.getMessage());
    }

    @Test
    void mutual_tls_mounts_the_client_ca_and_names_it_to_ace_and_needs_a_source() throws Exception {
        JsonNode pod = of(render("mutualTls.enabled", "true", "mutualTls.clientCaSecret", "apiserver-client-ca"), "Deployment").get(0)
                .at("/spec/template/spec");
        assertTrue(pod.at("/containers/0/env").toString().contains("{\"name\":\"ACE_TLS_CLIENT_CA\",\"value\":\"/etc/ace/client-ca/ca.crt\"}"));
        assertTrue(pod.at("/volumes").toString().contains("{\"name\":\"client-ca\",\"secret\":{\"secretName\":\"apiserver-client-ca\"}}"), pod.toString());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> render("mutualTls.enabled", "true"));
        assertTrue(e.getMessage().contains("mutualTls.clientCaSecret"), e.getMessage());
    }

    @Test
    void installed_in_another_namespace_every_reference_to_ace_follows_it() throws Exception {
        List<JsonNode> docs = ChartRender.renderIn("gpu-admission", "monitoring.serviceMonitor.enabled", "true");
        for (JsonNode w : of(docs, "MutatingWebhookConfiguration").get(0).path("webhooks")) {
            assertEquals("gpu-admission", w.at("/clientConfig/service/namespace").asText());
            assertTrue(w.at("/namespaceSelector").toString().contains("\"gpu-admission\""), "ACE never admits its own pods");
        }
        String guard = of(docs, "ValidatingAdmissionPolicy").stream().filter(p -> p.at("/metadata/name").asText().equals("ace-guard-pod-outputs"))
                .findFirst().orElseThrow().at("/spec/variables/0/expression").asText();
        assertEquals("'system:serviceaccount:gpu-admission:ace-binpacker'", guard, "only ACE's own ServiceAccount may edit its outputs");
        assertEquals("gpu-admission", of(docs, "ClusterRoleBinding").get(0).at("/subjects/0/namespace").asText());
        assertEquals("[\"gpu-admission\"]", of(docs, "ServiceMonitor").get(0).at("/spec/namespaceSelector/matchNames").toString());
        assertTrue(of(docs, "Secret").get(0).at("/data/tls.crt").asText().length() > 100);
    }

    @Test
    void every_field_of_the_ledger_schema_is_a_schema_not_a_stray_key_from_a_comma_in_a_flow_mapping() throws Exception {
        JsonNode crd = of(render(), "CustomResourceDefinition").get(0);
        List<String> stray = new ArrayList<>();
        walkProperties("", crd.at("/spec/versions/0/schema/openAPIV3Schema"), stray);
        assertEquals(List.of(), stray);
    }

    private static void walkProperties(String at, JsonNode schema, List<String> stray) {
        schema.path("properties").fields().forEachRemaining(f -> {
            if (!f.getValue().isObject() || !f.getValue().has("type")) stray.add(at + "/" + f.getKey());
            else walkProperties(at + "/" + f.getKey(), f.getValue(), stray);
        });
        if (schema.has("items")) walkProperties(at + "[]", schema.path("items"), stray);
    }

    @Test
    void helm_lint_passes() {
        LintResult lint = new Helm(ChartRender.CHART).lint().strict().call();
        assertFalse(lint.isFailed(), String.join("\n", lint.getMessages()));
    }
}
