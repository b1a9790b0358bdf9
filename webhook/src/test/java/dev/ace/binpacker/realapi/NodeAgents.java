package dev.ace.binpacker.realapi;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;

/**
 * The node agent's identity as the DaemonSet gives it: a pod of {@code ace-system} with ServiceAccount
 * {@code ace-agent}, bound to the node, and a token bound to that pod (so it carries the node's name, as
 * the kubelet's projected token does).
 */
public final class NodeAgents {
    private NodeAgents() {}

    /** The agent pod on {@code node} (created if missing; the suite's kubelet leaves ace-system pods alone). */
    public static Pod podOn(RealCluster c, String node) {
        String name = "ace-agent-" + node;
        Pod existing = c.admin().pods().inNamespace(AceInstall.NAMESPACE).withName(name).get();
        if (existing != null) return existing;
        return c.admin().pods().inNamespace(AceInstall.NAMESPACE).resource(new PodBuilder().withNewMetadata().withName(name)
                .withLabels(java.util.Map.of("app", "ace-agent")).endMetadata()
                .withNewSpec().withServiceAccountName(AceInstall.AGENT_SERVICE_ACCOUNT).withNodeName(node)
                .addNewToleration().withOperator("Exists").endToleration()
                .addNewContainer().withName("agent").withImage("ghcr.io/ace-dev/ace-agent:0.1.0").withArgs("agent").endContainer()
                .endSpec().build()).create();
    }

    /** A client authenticated as the agent on {@code node}. */
    public static KubernetesClient clientOn(RealCluster c, String node) throws IOException {
        String token = RealCluster.token(c.admin(), AceInstall.AGENT_SERVICE_ACCOUNT, podOn(c, node));
        return ControlPlane.client(c.controlPlane().writeTokenKubeconfig("agent-" + node, token));
    }
}
