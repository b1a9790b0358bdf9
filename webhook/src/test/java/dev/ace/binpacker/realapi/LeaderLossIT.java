package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Issue 7: a crashed leader loses nothing; the other replica takes the Lease and does the leader's work. */
@RealApiTest
class LeaderLossIT {
    @Test
    @DisplayName("SIGKILL of the Lease holder: the other replica takes the Lease, keeps answering admissions, and releases the pod waiting at the gate when GPUs free up")
    void survivorTakesTheLeaseAndReleasesTheWaiter(RealCluster c, TestNamespace ns) throws Exception {
        KubernetesClient tenant = Tenants.editor(c, ns.name(), "dave");
        List<String> boards = c.admin().nodes().list().getItems().stream()
                .filter(n -> "inference".equals(n.getMetadata().getLabels().get(AceKeys.POOL))).map(n -> n.getMetadata().getName()).toList();
        // Every 8-GPU board of pool inference taken by one TP 8 pod; one more TP 8 pod must wait at ACE's gate.
        for (int i = 0; i < boards.size(); i++) tenant.pods().inNamespace(ns.name()).resource(TpPods.vllm(ns.name(), "tp8-" + i, 8)).create();
        TpPods.awaitPinnedBound(c.admin(), ns.name(), boards.size(), Duration.ofMinutes(3));
        tenant.pods().inNamespace(ns.name()).resource(TpPods.vllm(ns.name(), "waiter", 8)).create();
        assertTrue(TpPods.gated(c.admin().pods().inNamespace(ns.name()).withName("waiter").get()), "no 8-GPU clique is free: the pod waits");

        Conditions.await("a leader", Duration.ofMinutes(1), () -> c.leader().isPresent());
        AceReplica leader = c.leader().orElseThrow();
        AceReplica survivor = c.replicas().stream().filter(r -> r != leader).findFirst().orElseThrow();
        leader.kill();
        try {
            // While nobody leads, admissions go on through the survivor (the proxy skips the dead replica).
            tenant.pods().inNamespace(ns.name()).resource(TpPods.vllm(ns.name(), "during-outage", 1)).create();
            assertTrue(TpPods.decidedByAce(c.admin().pods().inNamespace(ns.name()).withName("during-outage").get()),
                    "the survivor decided the pod created while the leader was dead");
            // Gone again before a board frees: a TP 1 pod gated behind the TP 8 waiter can take the freed board first
            // (GateKeeper lets a small request pass a big one that does not fit on that pass; seen once in CI, issue 19's
            // earmark is the fix), and this scenario is about the Lease, not that order.
            c.admin().pods().inNamespace(ns.name()).withName("during-outage").withGracePeriod(0).delete();
            c.admin().pods().inNamespace(ns.name()).withName("tp8-0").delete();
            Conditions.await(() -> "the survivor leads and releases the waiter" + TpPods.summary(c.admin(), ns.name()), Duration.ofMinutes(3), () -> {
                Pod w = c.admin().pods().inNamespace(ns.name()).withName("waiter").get();
                return !TpPods.gated(w) && w.getSpec().getNodeName() != null;
            });
            assertEquals(survivor, c.leader().orElseThrow());
            assertNotEquals(null, TpPods.annotation(c.admin().pods().inNamespace(ns.name()).withName("waiter").get(), AceKeys.RESERVATION));
            assertEquals(List.of(), c.ledgers().doubleBooked());
        } finally {
            leader.start();
            leader.awaitReady(Duration.ofMinutes(4));
        }
    }
}
