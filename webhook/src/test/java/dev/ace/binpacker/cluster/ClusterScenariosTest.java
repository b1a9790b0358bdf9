package dev.ace.binpacker.cluster;

import static dev.ace.binpacker.cluster.MockCluster.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.admission.GateRelease;
import dev.ace.binpacker.admission.ReservationJson;
import dev.ace.binpacker.cluster.controller.PinRepair;
import dev.ace.binpacker.cluster.view.ClusterWatch;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a real cluster did to ACE (issue 7), replayed through the real fabric8 adapters against the
 * mock API server made realistic ({@link RealisticDispatcher}): a scheduler binds pods, ungated pods'
 * scheduling directives are immutable, faults are injected. Replicas run as in production.
 */
class ClusterScenariosTest {
    private MockCluster k8s;

    @BeforeEach
    void cluster() {
        k8s = new MockCluster();
        k8s.namespace("ml", null);
    }

    @AfterEach
    void down() { k8s.close(); }

    static Pod tp(int gpus, String name) {
        Pod p = Pods.gpuPod("vllm/vllm-openai", "[--tensor-parallel-size, '" + gpus + "']", Integer.toString(gpus), null);
        p.getMetadata().setName(name);
        p.getMetadata().setOwnerReferences(List.of(new OwnerReference("apps/v1", true, true, "ReplicaSet", "rs", "rs-uid")));
        return p;
    }

    static Pod job(int gpus, String name, String namespace) {
        Pod p = Pods.gpuPod("busybox", "[sleep, '3600']", Integer.toString(gpus), null);
        p.getMetadata().setName(name);
        p.getMetadata().setNamespace(namespace);
        return p;
    }

    static Optional<Reservation> told(Pod p) {
        var a = p.getMetadata().getAnnotations();
        return a == null ? Optional.empty() : ReservationJson.read(dev.ace.binpacker.admission.Json.newMapper(), a.get(AceKeys.RESERVATION), 0);
    }

    private Pod live(Pod p) { return k8s.pod(p.getMetadata().getNamespace(), p.getMetadata().getName()).orElseThrow(); }

    @Test
    void pods_ace_did_not_place_warn_audit_exempt_and_failed_open_are_counted_and_no_tp8_is_pinned_onto_them() {
        k8s.namespace("team-warn", "warn");
        k8s.namespace("team-audit", "audit");
        k8s.namespace("team-exempt", "exempt");
        k8s.node(TestNodes.node("hgx-h100-0", 8));
        k8s.node(TestNodes.node("hgx-h100-1", 8));
        MockReplica a = k8s.replica("a").start();
        eventually(() -> a.ready() && a.leading() && a.namespaces.modeOf("team-exempt").name().equals("EXEMPT"), "replica a ready and leading");

        for (String ns : List.of("team-warn", "team-audit", "team-exempt")) {
            Pod out = a.admit(job(3, "job", ns));
            assertNotNull(out, ns + " admits the 3-GPU job");
            assertTrue(told(out).isEmpty(), ns + ": no reservation for a pod ACE would deny");
            k8s.create(out);
        }
        k8s.create(job(3, "admitted-while-ace-was-down", "ml")); // failurePolicy: Ignore let it in untouched
        assertEquals(4, k8s.schedule());
        eventually(() -> a.fleet.allocator().observedOn("hgx-h100-0") == 6 && a.fleet.allocator().observedOn("hgx-h100-1") == 6,
                "the four 3-GPU pods counted on their nodes");

        Pod big = k8s.admitAndCreate(a, tp(8, "llama-405b"));
        assertTrue(GateRelease.isGated(big), "no node has 8 free GPUs: gated, not pinned to a node that cannot take it");
        assertTrue(told(big).isEmpty());
        Pod small = k8s.admitAndCreate(a, tp(2, "llama-8b"));
        Reservation r = told(small).orElseThrow();
        assertEquals(1, k8s.schedule(), "the TP2 pod binds where ACE pinned it");
        assertEquals(r.node(), live(small).getSpec().getNodeName());
        eventually(() -> k8s.ledgerDocs().stream().anyMatch(d -> d.node().equals(r.node()) && d.capacity().foreign() == 6
                && d.free() == 0 && d.held() == 2), "kubectl get gpuledgers shows 6 GPUs of other pods, 2 held, none free on " + r.node());
    }

    private MockReplica leaderOn(String... nodes) {
        for (String n : nodes) k8s.node(TestNodes.node(n, 8));
        MockReplica a = k8s.replica("a").start();
        eventually(() -> a.ready() && a.leading(), "replica a ready and leading");
        return a;
    }

    @Test
    void two_replicas_and_one_leader_release_a_gated_pod_exactly_once() {
        k8s.node(TestNodes.node("hgx-h100-0", 8));
        MockReplica a = k8s.replica("a").start();
        MockReplica b = k8s.replica("b").start();
        eventually(() -> a.ready() && b.ready() && (a.leading() ^ b.leading()), "both ready, exactly one leads");
        Pod big = k8s.admitAndCreate(a, tp(8, "big"));
        assertEquals(1, k8s.schedule());
        Pod w1 = k8s.admitAndCreate(b, tp(4, "waiting-1"));
        Pod w2 = k8s.admitAndCreate(a, tp(4, "waiting-2"));
        assertTrue(GateRelease.isGated(w1) && GateRelease.isGated(w2));
        eventually(() -> a.pending.size() == 2 && b.pending.size() == 2, "both replicas queue both gated pods");

        k8s.client.pods().inNamespace("ml").withName("big").delete();
        eventually(() -> !GateRelease.isGated(live(w1)) && !GateRelease.isGated(live(w2)), "both gated pods released");
        long gpus = told(live(w1)).orElseThrow().gpuMask() | told(live(w2)).orElseThrow().gpuMask();
        assertEquals(0xffL, gpus, "the two TP4 pods share the board without overlap");
        assertEquals(2, k8s.api.podPatches.get(), "each gated pod was patched exactly once");
        eventually(() -> k8s.storeEntries().size() == 2 && k8s.storeEntries().stream().allMatch(e -> !e.pending()),
                "two entries, each tied to its pod");
        assertEquals(List.of(live(w1).getMetadata().getUid(), live(w2).getMetadata().getUid()).stream().sorted().toList(),
                k8s.storeEntries().stream().map(e -> e.owner().podUid()).sorted().toList());
        assertEquals(2, k8s.schedule());
        eventually(() -> a.entries().size() == 2 && b.entries().size() == 2 && a.pending.size() == 0 && b.pending.size() == 0,
                "both replicas mirror the same two entries and queue nothing");
        assertNotNull(big);
    }

    @Test
    void a_pod_recreated_with_the_same_name_is_a_new_owner_and_a_copy_of_its_annotation_is_just_counted() {
        k8s.namespace("team-exempt", "exempt");
        MockReplica a = leaderOn("hgx-h100-0");
        Pod first = k8s.admitAndCreate(a, tp(4, "db-0"));
        k8s.schedule();
        String firstId = told(first).orElseThrow().id();
        eventually(() -> k8s.storeEntries().stream().anyMatch(e -> first.getMetadata().getUid().equals(e.owner().podUid())),
                "the entry is tied to the first pod's UID");

        k8s.client.pods().inNamespace("ml").withName("db-0").delete();
        Pod second = k8s.admitAndCreate(a, tp(4, "db-0"));
        k8s.schedule();
        assertTrue(!told(second).orElseThrow().id().equals(firstId), "a new admission, a new random id");
        eventually(() -> k8s.storeEntries().size() == 1 && second.getMetadata().getUid().equals(k8s.storeEntries().get(0).owner().podUid()),
                "only the second pod's entry is left, tied to its UID");

        Pod copy = job(4, "copy-of-db-0", "team-exempt");
        copy.getMetadata().setAnnotations(second.getMetadata().getAnnotations()); // kubectl get -o yaml, re-applied elsewhere
        k8s.create(copy);
        assertEquals(1, k8s.schedule());
        eventually(() -> a.fleet.allocator().observedOn("hgx-h100-0") == 4 && a.metrics.conflicts.get() >= 1,
                "the copy holds its own 4 GPUs, counted, and the conflict is reported");
        assertEquals(second.getMetadata().getUid(), k8s.storeEntries().get(0).owner().podUid(), "the entry stays with its pod");
    }

    @Test
    void a_failed_replica_is_replaced_by_a_gated_pod_that_gets_its_gpus() {
        MockReplica a = leaderOn("hgx-h100-0");
        Pod old = k8s.admitAndCreate(a, tp(8, "web-a"));
        k8s.schedule();
        Pod replacement = k8s.admitAndCreate(a, tp(8, "web-b"));
        assertTrue(GateRelease.isGated(replacement));
        k8s.phase(live(old), "Failed");
        eventually(() -> !GateRelease.isGated(live(replacement)), "the replacement is released onto the freed GPUs");
        assertEquals("hgx-h100-0", told(live(replacement)).orElseThrow().node());
        assertEquals(1, k8s.schedule());
        assertEquals("hgx-h100-0", live(replacement).getSpec().getNodeName());
        eventually(() -> k8s.storeEntries().size() == 1, "the failed replica's entry is gone");
    }

    @Test
    void a_failed_ledger_write_gates_the_pod_and_leaks_nothing_and_lost_races_are_retried_and_counted() {
        MockReplica a = leaderOn("hgx-h100-0");
        // Only the writes of this admission's entry fail (the leader's own writes to the same objects go through),
        // and more often than fabric8 retries a 5xx by itself.
        k8s.api.fail("POST", "/gpuledgers", "unlucky", 500, 100);
        k8s.api.fail("PUT", "/gpuledgers", "unlucky", 500, 100);
        // Not an HTTP 500 (failurePolicy Ignore would admit the pod without ACE): the pod waits at the gate for the leader.
        Pod unlucky = a.admit(tp(4, "unlucky"));
        assertTrue(GateRelease.isGated(unlucky), "a failed commit gates the pod, it neither pins it nor fails open");
        assertFalse(unlucky.getMetadata().getAnnotations().containsKey(AceKeys.RESERVATION), "no reservation is promised");
        assertEquals(List.of(), a.entries(), "the local reservation is released at once");
        k8s.api.clearFaults();

        int before = a.metrics.conflicts.get();
        k8s.api.fail("PUT", "/gpuledgers", "\"podName\":\"lucky\"", 409, 2);
        k8s.api.fail("POST", "/gpuledgers", "\"podName\":\"lucky\"", 409, 2);
        Pod ok = k8s.admitAndCreate(a, tp(4, "lucky"));
        assertTrue(told(ok).isPresent());
        assertTrue(a.metrics.conflicts.get() >= before + 2, "every lost compare-and-swap is counted");
        eventually(() -> k8s.storeEntries().size() == 1, "only the committed reservation is in the ledger");
    }

    @Test
    void a_dropped_watch_relists_and_a_pod_deleted_meanwhile_frees_its_gpus() {
        MockReplica a = leaderOn("hgx-h100-0");
        Pod p = k8s.admitAndCreate(a, tp(8, "big"));
        k8s.schedule();
        eventually(() -> k8s.storeEntries().size() == 1 && !k8s.storeEntries().get(0).pending(), "tied");
        k8s.api.dropWatches("/api/v1/pods");
        k8s.client.pods().inNamespace("ml").withName("big").delete();
        eventually(() -> k8s.storeEntries().isEmpty() && a.entries().isEmpty(), "the entry is released after the relist");
        Pod next = k8s.admitAndCreate(a, tp(8, "next"));
        assertEquals("hgx-h100-0", told(next).orElseThrow().node(), "the freed GPUs are handed out again");
        assertNotNull(p);
    }

    @Test
    void a_leader_that_loses_its_lease_stops_and_the_other_replica_takes_over() {
        k8s.node(TestNodes.node("hgx-h100-0", 8));
        MockReplica a = k8s.replica("a").start();
        eventually(() -> a.ready() && a.leading(), "a leads");
        MockReplica b = k8s.replica("b").start();
        eventually(b::ready, "b ready");
        Pod big = k8s.admitAndCreate(a, tp(8, "big"));
        k8s.schedule();
        Pod waiting = k8s.admitAndCreate(b, tp(8, "waiting"));
        assertTrue(GateRelease.isGated(waiting));

        // a's renewals fail from now on (its node is partitioned from the API server, say)
        k8s.api.fail("PATCH", "/leases/", "\"holderIdentity\":\"a\"", 500, 1_000_000);
        k8s.api.fail("PUT", "/leases/", "\"holderIdentity\":\"a\"", 500, 1_000_000);
        eventually(() -> !a.leading(), "a stops leading once it cannot renew within its deadline");
        eventually(b::leading, "b takes the Lease once it expires");
        assertTrue(!a.leading(), "never two leaders");

        k8s.phase(live(big), "Succeeded");
        eventually(() -> !GateRelease.isGated(live(waiting)), "the new leader releases the gated pod");
        eventually(() -> k8s.storeEntries().size() == 1, "the finished pod's entry is released, the released pod's kept");
    }

    @Test
    void a_node_whose_gpu_count_shrinks_keeps_its_reservations_reports_the_overcommit_and_repairs_the_stuck_pin() {
        MockReplica a = leaderOn("hgx-h100-0");
        Pod running = k8s.admitAndCreate(a, tp(4, "running"));
        assertEquals(1, k8s.schedule());
        Pod pinned = k8s.admitAndCreate(a, tp(4, "pinned")); // the scheduler has not bound it yet
        eventually(() -> k8s.storeEntries().size() == 2, "two entries");

        k8s.setAllocatable("hgx-h100-0", 4); // four GPUs went unhealthy: the device plugin offers four
        eventually(() -> a.fleet.allocator().usable("hgx-h100-0") == 4, "a sees the new allocatable");
        int i = a.fleet.allocator().state().indexOf("hgx-h100-0");
        assertEquals(2, a.entries().size(), "held reservations are kept");
        assertEquals(4, (int) a.fleet.allocator().read(al -> al.state().overcommit(i)), "over-commit is counted, not hidden");
        eventually(() -> k8s.pod("ml", "pinned").isEmpty(), "the pinned pod that cannot bind is deleted for its controller to re-create");
        // the counter moves just after the delete call returns: wait for it, do not race it
        eventually(() -> a.metrics.repaired("deleted") == 1, "the repair is counted once");
        assertEquals(1, a.metrics.repaired("deleted"));
        assertTrue(k8s.client.v1().events().inNamespace("ml").list().getItems().stream()
                .anyMatch(e -> e.getReason().equals(PinRepair.REASON) && e.getInvolvedObject().getName().equals("pinned")), "with an Event saying why");
        assertTrue(k8s.pod("ml", "running").isPresent(), "the bound pod is untouched");
        eventually(() -> k8s.storeEntries().size() == 1, "the deleted pod's entry is released");
        assertNotNull(running);
        assertNotNull(pinned);
    }

    @Test
    void a_restarted_replica_rebuilds_the_ledger_and_the_queue_order_before_it_is_ready() throws InterruptedException {
        MockReplica a = leaderOn("hgx-h100-0");
        k8s.admitAndCreate(a, tp(8, "big"));
        k8s.schedule();
        Pod low = tp(4, "low");
        k8s.admitAndCreate(a, low);
        Pod highOld = tp(4, "high-old");
        highOld.getSpec().setPriority(100);
        k8s.admitAndCreate(a, highOld);
        Thread.sleep(1_100); // creation timestamps have one-second resolution
        Pod highNew = tp(4, "high-new");
        highNew.getSpec().setPriority(100);
        k8s.admitAndCreate(a, highNew);
        eventually(() -> k8s.storeEntries().size() == 1 && !k8s.storeEntries().get(0).pending(), "the running pod's entry is tied");
        a.close();

        k8s.api.slow("GET", "/api/v1/pods?", 1_500, 1); // the first pod list of the new replica is slow
        MockReplica c = k8s.replica("c").start();
        eventually(() -> c.readiness.isReady(ClusterWatch.LEDGER), "ledger mirrored");
        assertTrue(!c.ready(), "not ready while the pod list is still coming");
        eventually(c::ready, "c ready");
        assertEquals(1, c.entries().size(), "the ledger is rebuilt before readiness");
        assertEquals(List.of("ml/high-old", "ml/high-new", "ml/low"), c.pending.waiting().stream().map(w -> w.podKey()).toList(),
                "the gated queue is rebuilt in priority-then-age order before readiness");
    }
}
