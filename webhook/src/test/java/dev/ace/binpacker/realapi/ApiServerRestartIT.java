package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Issue 7: an API server outage in the middle of admissions leaks no reservation and loses no pin. */
@RealApiTest
class ApiServerRestartIT {
    @Test
    @DisplayName("kube-apiserver stopped and started while pods are being created and deleted: afterwards every ledger entry is a live pod's, every pinned pod has its entry, no GPU twice")
    void outageMidRunLeaksNothing(RealCluster c, TestNamespace ns) throws Exception {
        KubernetesClient tenant = Tenants.editor(c, ns.name(), "erin");
        for (int i = 0; i < 4; i++) tenant.pods().inNamespace(ns.name()).resource(TpPods.vllm(ns.name(), "before-" + i, 2)).create();
        TpPods.awaitPinnedBound(c.admin(), ns.name(), 4, Duration.ofMinutes(2));

        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger n = new AtomicInteger();
        Thread creator = new Thread(() -> {
            while (!stop.get()) {
                int i = n.getAndIncrement();
                try {
                    tenant.pods().inNamespace(ns.name()).resource(TpPods.vllm(ns.name(), "during-" + i, 1)).create();
                } catch (RuntimeException e) {
                    // the API server is down: the create fails, as it would for any client
                }
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "realapi-creator");
        creator.start();
        Conditions.await("a few pods created before the outage", Duration.ofMinutes(1), () -> n.get() >= 3);
        c.controlPlane().stopApiServer();
        // The outage itself (not an assertion): longer than the Lease (15 s), so the leader stops leading meanwhile.
        Thread.sleep(20_000);
        c.controlPlane().startApiServer();
        Conditions.await("a few pods created after the outage", Duration.ofMinutes(2), () -> c.admin().pods().inNamespace(ns.name()).list()
                .getItems().size() >= 8);
        stop.set(true);
        creator.join(60_000);
        c.admin().pods().inNamespace(ns.name()).withName("before-0").delete();
        c.admin().pods().inNamespace(ns.name()).withName("before-1").delete();

        // Reservations whose pod never reached etcd expire after the pending TTL (45 s in this suite); entries of deleted pods go at once.
        Conditions.await(() -> "ledger entries == live pinned pods; ledger: " + c.ledgers().entries(ns.name()) + TpPods.summary(c.admin(), ns.name()),
                Duration.ofMinutes(4), () -> {
                    List<Pod> pods = c.admin().pods().inNamespace(ns.name()).list().getItems().stream()
                            .filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
                    if (pods.stream().anyMatch(p -> p.getMetadata().getName().startsWith("before-0") || p.getMetadata().getName().equals("before-1"))) return false;
                    Set<String> pinned = pods.stream().filter(p -> TpPods.annotation(p, AceKeys.RESERVATION) != null)
                            .map(p -> p.getMetadata().getName()).collect(Collectors.toSet());
                    Set<String> held = c.ledgers().entries(ns.name()).stream().map(Ledgers.Entry::podName).collect(Collectors.toSet());
                    boolean allBound = c.ledgers().entries(ns.name()).stream().allMatch(Ledgers.Entry::bound);
                    return pinned.equals(held) && allBound;
                });
        assertEquals(List.of(), c.ledgers().doubleBooked());
        List<Pod> pods = new ArrayList<>(c.admin().pods().inNamespace(ns.name()).list().getItems());
        assertTrue(pods.stream().allMatch(TpPods::decidedByAce), "no pod failed open" + TpPods.summary(c.admin(), ns.name()));
        TpPods.awaitPinnedBound(c.admin(), ns.name(), (int) pods.stream().filter(p -> TpPods.annotation(p, AceKeys.RESERVATION) != null).count(),
                Duration.ofMinutes(2));
        for (AceReplica r : c.replicas()) r.awaitReady(Duration.ofMinutes(2));
    }
}
