package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The path every TP pod takes on a real cluster: tenant's create, ACE's webhooks by URL, the ledger object, kube-scheduler. */
@RealApiTest
class TpPodPinnedAndBoundIT {
    @Test
    @DisplayName("A tenant's TP 4 pod is reserved on one 8-GPU board by ACE, recorded in that node's GpuLedger, and bound there by kube-scheduler")
    void tenantsTpPodIsPinnedRecordedAndBound(RealCluster c, TestNamespace ns) throws Exception {
        KubernetesClient tenant = Tenants.editor(c, ns.name(), "alice");
        tenant.pods().inNamespace(ns.name()).resource(TpPods.vllm(ns.name(), "llama-70b", 4)).create();
        Pod p = TpPods.awaitPinnedBound(c.admin(), ns.name(), 1, Duration.ofMinutes(2)).get(0);
        assertNotNull(TpPods.annotation(p, AceKeys.DECISION), "ACE's decision is on the pod");
        String node = p.getSpec().getNodeName();
        assertTrue(node.startsWith("hgx-"), "a TP 4 pod goes to pool inference, got " + node);
        Conditions.await("the pod's ledger entry is bound to its UID", Duration.ofMinutes(1),
                () -> c.ledgers().entries(ns.name()).stream().anyMatch(e -> e.bound() && p.getMetadata().getUid().equals(e.podUid())));
        List<Ledgers.Entry> entries = c.ledgers().entries(ns.name());
        assertEquals(1, entries.size(), entries.toString());
        assertEquals(node, entries.get(0).node());
        assertEquals(4, entries.get(0).gpus().size());
        assertEquals(List.of(), c.ledgers().doubleBooked());
    }
}
