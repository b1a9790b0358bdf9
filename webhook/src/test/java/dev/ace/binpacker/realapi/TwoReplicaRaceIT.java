package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Issue 7's promise on a real API server: two replicas answering at once never hand out a GPU twice. */
@RealApiTest
class TwoReplicaRaceIT {
    @Test
    @DisplayName("Concurrent TP pods through both replicas: every pod decided (pinned or gated), no GPU twice in the GpuLedgers, every pin bound by kube-scheduler, gated pods released as pods leave")
    void concurrentCreatesAcrossBothReplicasNeverDoubleBook(RealCluster c, TestNamespace ns) throws Exception {
        List<KubernetesClient> tenants = new ArrayList<>();
        for (int i = 0; i < 6; i++) tenants.add(Tenants.editor(c, ns.name(), "racer-" + i));
        // A scenario before this one may have restarted a replica: every webhook connection then leads to the other.
        c.proxy().dropConnections();
        double[] before = answered(c);
        // 46 GPUs of TP 1, 2 and 4 against 24 GPUs of pool inference: some must wait at ACE's gate.
        List<Pod> pods = new ArrayList<>();
        int[] sizes = {4, 2, 1, 2, 4, 1, 2, 4, 2, 1};
        for (int i = 0; i < 20; i++) pods.add(TpPods.vllm(ns.name(), "race-" + i, sizes[i % sizes.length]));
        ConcurrentCreates.Outcome out = ConcurrentCreates.run(tenants, ns.name(), pods);
        assertEquals(java.util.Map.of(), out.errors(), "every create got an answer");
        assertEquals(java.util.Map.of(), out.refused(), "a TP pod that fits the fleet's boards is never refused");

        Conditions.await(() -> "every pod pinned and bound, or gated" + TpPods.summary(c.admin(), ns.name()), Duration.ofMinutes(3), () ->
                c.admin().pods().inNamespace(ns.name()).list().getItems().stream()
                        .allMatch(p -> TpPods.gated(p) || (TpPods.annotation(p, AceKeys.RESERVATION) != null && p.getSpec().getNodeName() != null)));
        List<Pod> now = c.admin().pods().inNamespace(ns.name()).list().getItems();
        assertEquals(20, now.size());
        assertTrue(now.stream().allMatch(TpPods::decidedByAce), "no pod failed open (admitted without ACE)" + TpPods.summary(c.admin(), ns.name()));
        assertEquals(List.of(), c.ledgers().doubleBooked());
        assertTrue(now.stream().anyMatch(TpPods::gated), "the fleet is over-asked: some pods wait");
        double[] after = answered(c);
        for (int r = 0; r < after.length; r++) {
            assertTrue(after[r] > before[r], c.replicas().get(r) + " answered none of the admissions: the race ran on one replica only");
        }

        // Pods leave: the leader releases the waiting ones into the freed GPUs, still never twice.
        for (Pod p : now) {
            if (p.getSpec().getNodeName() != null) c.admin().pods().inNamespace(ns.name()).withName(p.getMetadata().getName()).delete();
        }
        Conditions.await(() -> "the gated pods released and bound" + TpPods.summary(c.admin(), ns.name()), Duration.ofMinutes(3), () -> {
            List<Pod> left = c.admin().pods().inNamespace(ns.name()).list().getItems();
            return !left.isEmpty() && left.stream().allMatch(p -> !TpPods.gated(p) && p.getSpec().getNodeName() != null
                    && p.getMetadata().getDeletionTimestamp() == null);
        });
        assertEquals(List.of(), c.ledgers().doubleBooked());
        for (Pod p : c.admin().pods().inNamespace(ns.name()).list().getItems()) {
            assertTrue(c.ledgers().entries(ns.name()).stream().anyMatch(e -> e.node().equals(p.getSpec().getNodeName())
                    && p.getMetadata().getName().equals(e.podName())), "the ledger holds the released pod " + p.getMetadata().getName());
        }
    }

    /** Admission requests each replica has answered so far. */
    static double[] answered(RealCluster c) throws Exception {
        double[] n = new double[c.replicas().size()];
        for (int i = 0; i < n.length; i++) n[i] = c.replicas().get(i).metric("ace_admission_requests_total", "");
        return n;
    }
}
