package dev.ace.binpacker.realapi;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The project's own install, rendered by {@code kubectl kustomize} from {@code deploy/}, {@code deploy/agent}
 * and {@code webhook-config/} and applied as an admin would (server-side apply). Two changes only, both what
 * a cluster without pods of ACE needs: the Deployment and the agent DaemonSet are left out (the replicas run
 * as {@link AceReplica} processes, the agent in the test), and every webhook's {@code clientConfig} is a URL
 * of the suite's {@link RoundRobinProxy} (standing in for the Service) with the suite CA as {@code caBundle}.
 */
public final class AceInstall {
    public static final String NAMESPACE = "ace-system";
    public static final String SERVICE_ACCOUNT = "ace-binpacker";
    public static final String AGENT_SERVICE_ACCOUNT = "ace-agent";

    private AceInstall() {}

    /** What {@code kubectl kustomize DIR} renders, as objects. */
    static List<HasMetadata> render(ControlPlane cp, String dir) throws Exception {
        Process p = new ProcessBuilder(cp.binaries().kubectl().toString(), "kustomize", dir).redirectErrorStream(false).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IllegalStateException("kubectl kustomize " + dir + " failed: " + err);
        return cp.admin().load(new ByteArrayInputStream(out)).items();
    }

    /** deploy/ and deploy/agent without their workloads; CRDs established before anything else. */
    static void applyDeploy(ControlPlane cp) throws Exception {
        KubernetesClient admin = cp.admin();
        List<HasMetadata> all = new ArrayList<>(render(cp, "deploy"));
        all.addAll(render(cp, Path.of("deploy", "agent").toString()));
        all.removeIf(o -> o instanceof Deployment || o instanceof DaemonSet);
        for (HasMetadata o : all) {
            if (o.getKind().equals("CustomResourceDefinition") || o.getKind().equals("Namespace")) admin.resource(o).forceConflicts().serverSideApply();
        }
        for (HasMetadata crd : all) {
            if (!crd.getKind().equals("CustomResourceDefinition")) continue;
            admin.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName()).waitUntilCondition(d -> d != null
                    && d.getStatus() != null && d.getStatus().getConditions().stream()
                            .anyMatch(c -> c.getType().equals("Established") && c.getStatus().equals("True")), 2, TimeUnit.MINUTES);
        }
        for (HasMetadata o : all) {
            if (!o.getKind().equals("CustomResourceDefinition") && !o.getKind().equals("Namespace")) admin.resource(o).forceConflicts().serverSideApply();
        }
    }

    /** webhook-config/ with every webhook called by URL on {@code port} and the suite CA as caBundle. */
    static void applyWebhooks(ControlPlane cp, int port) throws Exception {
        String caBundle = Pki.base64(cp.pki().caPem());
        for (HasMetadata o : render(cp, "webhook-config")) {
            if (o instanceof MutatingWebhookConfiguration m) {
                m.getWebhooks().forEach(w -> w.setClientConfig(byUrl(w.getClientConfig(), port, caBundle)));
            } else if (o instanceof ValidatingWebhookConfiguration v) {
                v.getWebhooks().forEach(w -> w.setClientConfig(byUrl(w.getClientConfig(), port, caBundle)));
            }
            cp.admin().resource(o).forceConflicts().serverSideApply();
        }
    }

    static WebhookClientConfig byUrl(WebhookClientConfig c, int port, String caBundle) {
        String path = c.getService() == null || c.getService().getPath() == null ? "/" : c.getService().getPath();
        return new WebhookClientConfig(caBundle, null, "https://127.0.0.1:" + port + path);
    }
}
