package dev.ace.binpacker.realapi;

import static dev.ace.binpacker.realapi.Refusals.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Every ValidatingAdmissionPolicy the project ships (deploy/agent/admission-policy.yaml,
 * webhook-config/exempt-guard.yaml, webhook-config/pod-outputs-guard.yaml), on the real API server, as
 * installed, with requests it must allow and requests it must deny, from real identities (ServiceAccount
 * tokens, client certificates) through RBAC.
 */
@RealApiTest
class ShippedAdmissionPoliciesIT {
    private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);

    @Test
    @DisplayName("ace-agent-own-node: the agent (bound token naming its node) may patch ace.dev/ keys of its own Node and nothing else")
    void agentMayPatchOnlyAceKeysOfItsOwnNode(RealCluster c) throws Exception {
        String own = "vap-gpu-" + UUID.randomUUID().toString().substring(0, 4);
        String other = own + "-other";
        c.nodes().create(own, "l40s-0");
        c.nodes().create(other, "l40s-0");
        try (KubernetesClient agent = NodeAgents.clientOn(c, own)) {
            // A plain patch of the Node (no subResource): what every agent write is. Refused by the shipped policy before the fix.
            agent.nodes().withName(own).patch(MERGE, "{\"metadata\":{\"labels\":{\"ace.dev/topology-manager-policy\":\"none\"},"
                    + "\"annotations\":{\"ace.dev/realapi-note\":\"written by the agent\"}}}");
            var n = c.admin().nodes().withName(own).get();
            assertEquals("none", n.getMetadata().getLabels().get("ace.dev/topology-manager-policy"));
            assertEquals("written by the agent", n.getMetadata().getAnnotations().get("ace.dev/realapi-note"));

            refused(403, "the ACE node agent on " + own + " may only change its own Node, not " + other,
                    () -> agent.nodes().withName(other).patch(MERGE, "{\"metadata\":{\"annotations\":{\"ace.dev/realapi-note\":\"x\"}}}"));
            refused(403, "the ACE node agent may only change ace.dev/ labels",
                    () -> agent.nodes().withName(own).patch(MERGE, "{\"metadata\":{\"labels\":{\"nvidia.com/gpu.present\":\"false\"}}}"));
            refused(403, "the ACE node agent may only change ace.dev/ annotations",
                    () -> agent.nodes().withName(own).patch(MERGE, "{\"metadata\":{\"annotations\":{\"node.alpha.kubernetes.io/ttl\":\"0\"}}}"));
            refused(403, "may not change a Node's spec", () -> agent.nodes().withName(own).patch(MERGE, "{\"spec\":{\"unschedulable\":true}}"));
            // RBAC gives the agent get and patch on nodes only: a status write or a delete never reaches the policy.
            refused(403, "forbidden", () -> agent.nodes().withName(own).subresource("status").patch(MERGE, "{\"status\":{\"capacity\":{\"nvidia.com/gpu\":\"1\"}}}"));
            refused(403, "forbidden", () -> agent.nodes().withName(own).delete());
        }
        // Patch granted on nodes/status too (a cluster that widens the agent's RBAC): the policy still refuses status writes.
        c.admin().rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata().withName("realapi-agent-status").endMetadata()
                .withRules(new PolicyRuleBuilder().withApiGroups("").withResources("nodes/status").withVerbs("patch").build()).build()).serverSideApply();
        c.admin().rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata().withName("realapi-agent-status").endMetadata()
                .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName("realapi-agent-status").endRoleRef()
                .addNewSubject().withKind("ServiceAccount").withName(AceInstall.AGENT_SERVICE_ACCOUNT).withNamespace(AceInstall.NAMESPACE).endSubject()
                .build()).serverSideApply();
        try (KubernetesClient agent = NodeAgents.clientOn(c, own)) {
            Conditions.await("RBAC grants the agent nodes/status", java.time.Duration.ofMinutes(1), () -> {
                try {
                    agent.nodes().withName(own).subresource("status").patch(MERGE, "{\"status\":{\"capacity\":{\"nvidia.com/gpu\":\"1\"}}}");
                    throw new IllegalStateException("a status patch by the agent was accepted");
                } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                    return e.getMessage().contains("never create, delete or write their status");
                }
            });
        } finally {
            c.admin().rbac().clusterRoleBindings().withName("realapi-agent-status").delete();
            c.admin().rbac().clusterRoles().withName("realapi-agent-status").delete();
        }
        // A token of the agent's ServiceAccount that is not bound to a pod names no node.
        try (KubernetesClient unbound = ControlPlane.client(c.controlPlane().writeTokenKubeconfig("agent-unbound",
                RealCluster.token(c.admin(), AceInstall.AGENT_SERVICE_ACCOUNT, null)))) {
            refused(403, "names no node", () -> unbound.nodes().withName(own).patch(MERGE, "{\"metadata\":{\"annotations\":{\"ace.dev/realapi-note\":\"y\"}}}"));
        }
        // Other users are not this policy's business: an admin edits any label.
        c.admin().nodes().withName(own).patch(MERGE, "{\"metadata\":{\"labels\":{\"realapi/touched\":\"yes\"}}}");
        c.admin().nodes().withName(own).delete();
        c.admin().nodes().withName(other).delete();
    }

    @Test
    @DisplayName("ace-agent-own-report: the agent may create and replace the GpuNodeReport of its own node only; a tenant may not write one at all")
    void agentWritesOnlyItsOwnNodesReport(RealCluster c) throws Exception {
        String own = "vap-rep-" + UUID.randomUUID().toString().substring(0, 4);
        String other = own + "-other";
        c.nodes().create(own, "l40s-0");
        var report = new dev.ace.binpacker.truth.NodeReport(1, "2026-12-01T00:00:00Z", dev.ace.binpacker.topology.TopologyManagerPolicy.NONE,
                4, 0xfL, List.of(), List.of());
        try (KubernetesClient agent = NodeAgents.clientOn(c, own)) {
            var store = new dev.ace.binpacker.cluster.report.NodeReportStore(agent);
            store.create(own, report);
            store.replace(own, report.withGeneration(2, "2026-12-01T00:00:10Z"));
            assertEquals(2L, new dev.ace.binpacker.cluster.report.NodeReportStore(c.admin()).get(own)
                    .flatMap(dev.ace.binpacker.cluster.report.NodeReportStore::read).orElseThrow().generation());
            refused(403, "may only write the GpuNodeReport of its own node, not " + other, () -> store.create(other, report));
            // The object named after its node, but spec.node naming another: refused too.
            refused(403, "may only write the GpuNodeReport of its own node", () -> agent.genericKubernetesResources("ace.dev/v1alpha1", "GpuNodeReport")
                    .withName(own).patch(MERGE, "{\"spec\":{\"node\":\"" + other + "\"}}"));
            // RBAC gives the agent no delete.
            refused(403, "forbidden", () -> agent.genericKubernetesResources("ace.dev/v1alpha1", "GpuNodeReport").withName(own).delete());
        }
        String suffix = UUID.randomUUID().toString().substring(0, 6);
        c.admin().rbac().roles().inNamespace("default").list(); // warm the client; the tenant below has no cluster-scoped rights
        try (KubernetesClient tenant = c.controlPlane().userClient("tenant-" + suffix)) {
            refused(403, "forbidden", () -> new dev.ace.binpacker.cluster.report.NodeReportStore(tenant).create(other, report));
            refused(403, "forbidden", () -> new dev.ace.binpacker.cluster.report.NodeReportStore(tenant).replace(own, report.withGeneration(99, null)));
        }
        new dev.ace.binpacker.cluster.report.NodeReportStore(c.admin()).objects().withName(own).delete();
        c.admin().nodes().withName(own).delete();
    }

    @Test
    @DisplayName("ace-guard-policy-exempt: a namespace manager without policyexemptions may not relax ACE; enforce, unchanged values and cluster admins pass")
    void onlyAdminsRelaxANamespace(RealCluster c) throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 6);
        c.admin().rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata().withName("realapi-ns-manager").endMetadata()
                .withRules(new PolicyRuleBuilder().withApiGroups("").withResources("namespaces").withVerbs("get", "list", "create", "update", "patch", "delete").build())
                .build()).serverSideApply();
        c.admin().rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata().withName("realapi-policy-exemptions").endMetadata()
                .withRules(new PolicyRuleBuilder().withApiGroups("ace.dev").withResources("policyexemptions").withVerbs("create").build()).build()).serverSideApply();
        bind(c, "realapi-ns-manager", "ns-manager-" + suffix);
        bind(c, "realapi-ns-manager", "platform-" + suffix);
        bind(c, "realapi-policy-exemptions", "platform-" + suffix);
        try (KubernetesClient manager = c.controlPlane().userClient("ns-manager-" + suffix);
             KubernetesClient platform = c.controlPlane().userClient("platform-" + suffix)) {
            String a = "vap-ns-" + suffix;
            Conditions.await("RBAC lets ns-manager create namespaces", java.time.Duration.ofMinutes(1), () -> {
                try {
                    manager.namespaces().resource(ns(a, Map.of(AceKeys.POLICY, "enforce"))).create();
                    return true;
                } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                    if (e.getMessage().contains("ace.dev/policy")) throw new IllegalStateException(e);
                    return false;
                }
            });
            for (String mode : List.of("warn", "audit", "exempt")) {
                refused(403, "only cluster admins may set ace.dev/policy=" + mode + " on namespace " + a,
                        () -> manager.namespaces().withName(a).patch(MERGE, "{\"metadata\":{\"labels\":{\"ace.dev/policy\":\"" + mode + "\"}}}"));
                refused(403, "only cluster admins may set ace.dev/policy=" + mode,
                        () -> manager.namespaces().resource(ns(a + "-" + mode, Map.of(AceKeys.POLICY, mode))).create());
            }
            // Someone granted create on policyexemptions.ace.dev may; so may a cluster admin (system:masters).
            platform.namespaces().withName(a).patch(MERGE, "{\"metadata\":{\"labels\":{\"ace.dev/policy\":\"warn\"}}}");
            c.admin().namespaces().resource(ns(a + "-x", Map.of(AceKeys.POLICY, "exempt"))).create();
            // A value already set may stay while other labels change, and removing the label (back to enforce) is always allowed.
            manager.namespaces().withName(a).patch(MERGE, "{\"metadata\":{\"labels\":{\"team\":\"research\"}}}");
            assertEquals("warn", c.admin().namespaces().withName(a).get().getMetadata().getLabels().get(AceKeys.POLICY));
            manager.namespaces().withName(a).patch(MERGE, "{\"metadata\":{\"labels\":{\"ace.dev/policy\":null}}}");
            assertNull(c.admin().namespaces().withName(a).get().getMetadata().getLabels().get(AceKeys.POLICY));
            c.admin().namespaces().withName(a).delete();
            c.admin().namespaces().withName(a + "-x").delete();
        }
    }

    @Test
    @DisplayName("ace-guard-pod-outputs: only ACE's ServiceAccount changes ACE's annotations or removes its gate; a tenant and a cluster admin are refused")
    void onlyAceChangesItsOutputsOnPods(RealCluster c) throws Exception {
        // An exempt namespace: the webhooks leave the pod as written, so it carries ACE's keys without ACE having placed it.
        String nsName = c.createNamespace("vap-pods", Map.of(AceKeys.POLICY, "exempt"));
        try {
            Pod p = new PodBuilder().withNewMetadata().withName("gated").withNamespace(nsName)
                    .withAnnotations(Map.of(AceKeys.RESERVATION, "{\"id\":\"forged\"}", AceKeys.DECISION, "waiting")).endMetadata()
                    .withNewSpec().withNodeSelector(Map.of("kubernetes.io/hostname", "no-such-node")).addNewSchedulingGate(AceKeys.GATE).addNewContainer().withName("c").withImage("busybox").endContainer().endSpec().build();
            c.admin().pods().inNamespace(nsName).resource(p).create();
            KubernetesClient tenant = Tenants.editor(c, nsName, "bob-" + UUID.randomUUID().toString().substring(0, 4));
            var pod = tenant.pods().inNamespace(nsName).withName("gated");
            refused(403, "only ACE may remove the scheduling gate ace.dev/waiting-for-clique from pod gated",
                    () -> pod.patch(MERGE, "{\"spec\":{\"schedulingGates\":null}}"));
            refused(403, "only ACE may add, change or remove ace.dev/reservation on pod gated",
                    () -> pod.patch(MERGE, "{\"metadata\":{\"annotations\":{\"ace.dev/reservation\":\"{\\\"id\\\":\\\"mine\\\"}\"}}}"));
            refused(403, "only ACE may add, change or remove ace.dev/decision",
                    () -> pod.patch(MERGE, "{\"metadata\":{\"annotations\":{\"ace.dev/decision\":null}}}"));
            refused(403, "only ACE may add, change or remove ace.dev/rewritten-from",
                    () -> pod.patch(MERGE, "{\"metadata\":{\"annotations\":{\"ace.dev/rewritten-from\":\"nvidia.com/gpu\"}}}"));
            refused(403, "only ACE may add, change or remove ace.dev/reservation",
                    () -> c.admin().pods().inNamespace(nsName).withName("gated").patch(MERGE, "{\"metadata\":{\"annotations\":{\"ace.dev/reservation\":null}}}"));
            // Everything else a tenant changes passes.
            pod.patch(MERGE, "{\"metadata\":{\"annotations\":{\"team\":\"research\"},\"labels\":{\"tier\":\"gold\"}}}");
            // ACE itself (its ServiceAccount's token) may change its keys and remove its gate.
            try (KubernetesClient ace = ControlPlane.client(c.controlPlane().dir().resolve("ace-binpacker.kubeconfig"))) {
                ace.pods().inNamespace(nsName).withName("gated").patch(MERGE,
                        "{\"metadata\":{\"annotations\":{\"ace.dev/decision\":\"released\"}},\"spec\":{\"schedulingGates\":null}}");
            }
            Pod after = c.admin().pods().inNamespace(nsName).withName("gated").get();
            assertEquals("released", after.getMetadata().getAnnotations().get(AceKeys.DECISION));
            assertEquals(List.of(), after.getSpec().getSchedulingGates());
        } finally {
            c.deleteNamespace(nsName);
        }
    }

    private static io.fabric8.kubernetes.api.model.Namespace ns(String name, Map<String, String> labels) {
        return new NamespaceBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata().build();
    }

    private static void bind(RealCluster c, String role, String user) {
        c.admin().rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(role + "-" + user).endMetadata()
                .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(role).endRoleRef()
                .addNewSubject().withApiGroup("rbac.authorization.k8s.io").withKind("User").withName(user).endSubject().build()).serverSideApply();
    }
}
