package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 18, "fit before pin" on a real cluster: a pin whose node can no longer hold the pod's other resources
 * is repaired. ACE decides a Deployment's TP 4 pod (4 GPUs, 8 CPUs) while kube-scheduler is stopped; before the
 * scheduler runs, a pod created straight onto that node ({@code spec.nodeName}, as a DaemonSet's or an
 * operator's would be) takes the node's CPUs. kube-scheduler then reports the pinned pod {@code Unschedulable}
 * (Insufficient cpu); ACE's leader sees the condition, records an Event, deletes the pod (its controller
 * re-creates it) and decides the new pod afresh, onto a node where GPUs and CPUs both fit.
 */
@RealApiTest
class PinRepairIT {
    private static final int TP_CPUS = 8;

    @Test
    @DisplayName("A pinned TP pod whose node lost its CPUs before binding is reported, re-created by its Deployment and pinned where it fits")
    void pinWhoseNodeCannotHoldTheCpuIsRepaired(RealCluster c, TestNamespace ns) throws Exception {
        KubernetesClient tenant = Tenants.editor(c, ns.name(), "alice");
        KubernetesClient admin = c.admin();
        String firstUid;
        String firstNode;
        c.controlPlane().stopScheduler();
        try {
            tenant.apps().deployments().inNamespace(ns.name()).resource(deployment(ns.name())).create();
            Conditions.await(() -> "the Deployment's pod pinned by ACE (scheduler stopped): " + TpPods.summary(admin, ns.name()),
                    Duration.ofMinutes(2), () -> pods(admin, ns.name()).stream().anyMatch(p -> TpPods.annotation(p, AceKeys.RESERVATION) != null));
            Pod first = pods(admin, ns.name()).stream().filter(p -> TpPods.annotation(p, AceKeys.RESERVATION) != null).findFirst().orElseThrow();
            firstUid = first.getMetadata().getUid();
            Conditions.await("the pinned pod's ledger entry", Duration.ofMinutes(1),
                    () -> !c.ledgers().entries(ns.name()).isEmpty());
            firstNode = c.ledgers().entries(ns.name()).get(0).node();
            int free = 96 - cpusBoundOn(admin, firstNode);
            assertTrue(free >= TP_CPUS, firstNode + " had room for the pod's CPUs when ACE pinned it: " + free);
            admin.pods().inNamespace(ns.name()).resource(cpuHog(ns.name(), firstNode, free - TP_CPUS / 2)).create();
        } finally {
            c.controlPlane().startScheduler();
        }
        String oldUid = firstUid;
        String oldNode = firstNode;

        Conditions.await(() -> "ACE reported the pin kube-scheduler cannot honour; events: " + events(admin, ns.name()), Duration.ofMinutes(3),
                () -> events(admin, ns.name()).stream().anyMatch(e -> "AcePinUnschedulable".equals(e.getReason())
                        && oldUid.equals(e.getInvolvedObject().getUid())));
        Conditions.await(() -> "the re-created pod pinned and bound elsewhere: " + TpPods.summary(admin, ns.name()), Duration.ofMinutes(3), () -> {
            Pod p = replacement(admin, ns.name(), oldUid);
            return p != null && p.getSpec().getNodeName() != null && TpPods.annotation(p, AceKeys.RESERVATION) != null;
        });
        Pod again = replacement(admin, ns.name(), oldUid);
        assertNotEquals(oldNode, again.getSpec().getNodeName(), "the new pod is pinned where its CPUs fit, not to the node that lost them");
        assertTrue(admin.pods().inNamespace(ns.name()).list().getItems().stream().noneMatch(p -> oldUid.equals(p.getMetadata().getUid())),
                "the unschedulable pod is gone (ACE deleted it for its ReplicaSet to re-create)");
        Event report = events(admin, ns.name()).stream().filter(e -> "AcePinUnschedulable".equals(e.getReason())).findFirst().orElseThrow();
        assertTrue(report.getMessage().contains(oldNode) && report.getMessage().contains("cpu"),
                "the Event names the node and kube-scheduler's reason: " + report.getMessage());
        Conditions.await(() -> "the old pod's GPUs released and the new pod's entry tied: " + c.ledgers().entries(ns.name()), Duration.ofMinutes(1),
                () -> {
                    List<Ledgers.Entry> entries = c.ledgers().entries(ns.name());
                    return entries.size() == 1 && entries.get(0).bound() && again.getMetadata().getUid().equals(entries.get(0).podUid());
                });
        assertEquals(again.getSpec().getNodeName(), c.ledgers().entries(ns.name()).get(0).node());
        assertEquals(List.of(), c.ledgers().doubleBooked());
    }

    private static Deployment deployment(String ns) {
        Pod template = TpPods.vllm(ns, "llama-70b", 4);
        template.getSpec().getContainers().get(0).getResources().setRequests(Map.of("cpu", new Quantity(Integer.toString(TP_CPUS)),
                "memory", new Quantity("64Gi")));
        return new DeploymentBuilder().withNewMetadata().withNamespace(ns).withName("llama-70b").endMetadata()
                .withNewSpec().withReplicas(1).withNewSelector().withMatchLabels(Map.of("app", "vllm")).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", "vllm")).endMetadata().withSpec(template.getSpec()).endTemplate()
                .endSpec().build();
    }

    /** A CPU-only pod bound straight to {@code node}: no scheduler, no GPUs, so ACE neither pins nor refuses it. */
    private static Pod cpuHog(String ns, String node, int cpus) {
        return new PodBuilder().withNewMetadata().withNamespace(ns).withName("cpu-hog").endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("hog").withImage("registry.k8s.io/pause:3.10")
                .withNewResources().withRequests(Map.of("cpu", new Quantity(Integer.toString(cpus)))).endResources().endContainer()
                .endSpec().build();
    }

    private static List<Pod> pods(KubernetesClient admin, String ns) {
        return admin.pods().inNamespace(ns).withLabel("app", "vllm").list().getItems();
    }

    private static Pod replacement(KubernetesClient admin, String ns, String oldUid) {
        return pods(admin, ns).stream().filter(p -> !oldUid.equals(p.getMetadata().getUid()) && p.getMetadata().getDeletionTimestamp() == null)
                .findFirst().orElse(null);
    }

    private static List<Event> events(KubernetesClient admin, String ns) {
        return admin.v1().events().inNamespace(ns).list().getItems();
    }

    /** Whole CPUs requested by the live pods bound to {@code node}, in every namespace (as kube-scheduler counts them). */
    private static int cpusBoundOn(KubernetesClient admin, String node) {
        double sum = 0;
        for (Pod p : admin.pods().inAnyNamespace().list().getItems()) {
            if (!node.equals(p.getSpec().getNodeName()) || "Succeeded".equals(p.getStatus().getPhase()) || "Failed".equals(p.getStatus().getPhase())) continue;
            for (var ct : p.getSpec().getContainers()) {
                Quantity q = ct.getResources() == null || ct.getResources().getRequests() == null ? null : ct.getResources().getRequests().get("cpu");
                if (q != null) sum += Quantity.getAmountInBytes(q).doubleValue();
            }
        }
        return (int) Math.ceil(sum);
    }
}
