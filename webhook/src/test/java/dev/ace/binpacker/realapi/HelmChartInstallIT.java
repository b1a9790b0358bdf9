package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.marcnuri.helm.Helm;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The Helm chart's rendering (helm-java, certificates.mode=external, the agent on) installed on the real API
 * server in place of the kustomize install: its CRD, RBAC, admission policies and webhook configurations are the
 * ones in force when a tenant's TP pod is admitted. As {@link AceInstall} does for kustomize, the Deployment and
 * DaemonSet stay out (the replicas run as processes) and the webhooks are called by URL with the suite CA.
 */
@RealApiTest
class HelmChartInstallIT {
    private static List<HasMetadata> chart(KubernetesClient admin) {
        String yaml = new Helm(Path.of("deploy/helm/ace-binpacker")).template().withName("ace").withNamespace(AceInstall.NAMESPACE)
                .set("certificates.mode", "external").set("agent.enabled", "true").call();
        return admin.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items();
    }

    @Test
    @DisplayName("Installed from the Helm chart's rendering, ACE reserves and the scheduler binds a tenant's TP 4 pod")
    void chartInstallAdmitsATpPod(RealCluster c, TestNamespace ns) throws Exception {
        KubernetesClient admin = c.admin();
        String caBundle = Pki.base64(c.controlPlane().pki().caPem());
        int port = c.proxy().port();
        List<HasMetadata> objects = chart(admin);
        objects.removeIf(o -> o instanceof Deployment || o instanceof DaemonSet);
        for (HasMetadata o : objects) {
            if (o instanceof MutatingWebhookConfiguration m) {
                m.getWebhooks().forEach(w -> w.setClientConfig(AceInstall.byUrl(w.getClientConfig(), port, caBundle)));
                admin.admissionRegistration().v1().mutatingWebhookConfigurations().withName(m.getMetadata().getName()).delete();
                admin.resource(m).create();
            } else if (o instanceof ValidatingWebhookConfiguration v) {
                v.getWebhooks().forEach(w -> w.setClientConfig(AceInstall.byUrl(w.getClientConfig(), port, caBundle)));
                admin.admissionRegistration().v1().validatingWebhookConfigurations().withName(v.getMetadata().getName()).delete();
                admin.resource(v).create();
            } else {
                admin.resource(o).forceConflicts().serverSideApply();
            }
        }
        for (String kind : List.of("mutating", "validating")) {
            HasMetadata inForce = kind.equals("mutating")
                    ? admin.admissionRegistration().v1().mutatingWebhookConfigurations().withName("ace-binpacker").get()
                    : admin.admissionRegistration().v1().validatingWebhookConfigurations().withName("ace-binpacker").get();
            assertEquals("ace-binpacker-" + chartVersion(), inForce.getMetadata().getLabels().get("helm.sh/chart"),
                    "the " + kind + " configuration in force is the chart's");
        }

        KubernetesClient tenant = Tenants.editor(c, ns.name(), "carol");
        tenant.pods().inNamespace(ns.name()).resource(TpPods.vllm(ns.name(), "chart-llama", 4)).create();
        Pod p = TpPods.awaitPinnedBound(admin, ns.name(), 1, Duration.ofMinutes(2)).get(0);
        assertNotNull(TpPods.annotation(p, AceKeys.RESERVATION), "reserved by ACE through the chart's webhooks");
        assertTrue(p.getSpec().getNodeName().startsWith("hgx-"), p.getSpec().getNodeName());
        Conditions.await("the pod's ledger entry is bound to its UID", Duration.ofMinutes(1),
                () -> c.ledgers().entries(ns.name()).stream().anyMatch(e -> e.bound() && p.getMetadata().getUid().equals(e.podUid())));
        assertEquals(4, c.ledgers().entries(ns.name()).get(0).gpus().size());
        assertEquals(List.of(), c.ledgers().doubleBooked());
    }

    private static String chartVersion() throws Exception {
        return new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                .readTree(Path.of("deploy/helm/ace-binpacker/Chart.yaml").toFile()).path("version").asText();
    }
}
