package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 15's first burst, small: 60 TP pods from 10 clients into one namespace, on a fleet where all of them fit.
 * Before the burst work a namespace was refused past 32 reservations waiting for their pods although the pods were
 * being created; now a reservation whose pod an informer has seen does not count. Not a timed test: it counts outcomes.
 */
@RealApiTest
class BurstIT {
    static final int EXTRA_BOARDS = 14;

    @Test
    @DisplayName("A 60-pod TP burst in one namespace that fits the fleet: 0 refused, 0 failed open, 0 GPUs double-booked, every pod bound")
    void burstThatFitsRefusesNobody(RealCluster c, TestNamespace ns) throws Exception {
        List<String> added = new ArrayList<>();
        for (int i = 0; i < EXTRA_BOARDS; i++) {
            String name = "burst-h100-" + i;
            c.nodes().create(name, "hgx-h100-0");
            added.add(name);
        }
        try {
            List<KubernetesClient> clients = new ArrayList<>();
            for (int i = 0; i < 10; i++) clients.add(Tenants.editor(c, ns.name(), "burst-" + i));
            // 60 pods, 120 GPUs of TP 1, 2 and 4, against (3 + 14) boards x 8 = 136 GPUs of pool inference.
            int[] sizes = {2, 1, 4, 2, 1, 2};
            List<Pod> pods = new ArrayList<>();
            int gpus = 0;
            for (int i = 0; i < 60; i++) {
                int tp = sizes[i % sizes.length];
                gpus += tp;
                pods.add(TpPods.vllm(ns.name(), "burst-" + i, tp));
            }
            assertTrue(gpus <= 8 * (3 + EXTRA_BOARDS), "test set-up: the burst fits");
            ConcurrentCreates.Outcome out = ConcurrentCreates.run(clients, ns.name(), pods);
            assertEquals(Map.of(), out.errors(), "every create got an answer");
            assertEquals(Map.of(), out.refused(), "0 refused pods that fit");
            List<Pod> now = c.admin().pods().inNamespace(ns.name()).list().getItems();
            assertEquals(List.of(), now.stream().filter(p -> !TpPods.decidedByAce(p)).map(p -> p.getMetadata().getName()).toList(),
                    "0 failed open (admitted without ACE's reservation or gate)");
            TpPods.awaitPinnedBound(c.admin(), ns.name(), 60, Duration.ofMinutes(5));
            assertEquals(List.of(), c.ledgers().doubleBooked());
            assertEquals(60, c.ledgers().entries(ns.name()).size());
            assertTrue(c.admin().pods().inNamespace(ns.name()).list().getItems().stream()
                    .allMatch(p -> TpPods.annotation(p, AceKeys.RESERVATION) != null));
        } finally {
            c.admin().pods().inNamespace(ns.name()).withGracePeriod(0).delete();
            Conditions.await("burst pods gone", Duration.ofMinutes(3), () -> c.admin().pods().inNamespace(ns.name()).list().getItems().isEmpty());
            for (String n : added) c.admin().nodes().withName(n).delete();
        }
    }
}
