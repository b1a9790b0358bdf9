package dev.ace.binpacker.cluster;

import static dev.ace.binpacker.cluster.MockCluster.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.admission.GateRelease;
import dev.ace.binpacker.cluster.controller.CrdGroupStatusStore;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 19 on the realistic mock API server: LeaderWorkerSet-shaped TP 8 x 2 groups get both cliques in one
 * step or hold none, are released together, and two groups competing for the same GPUs both complete.
 */
class GroupScenariosTest {
    private MockCluster k8s;
    private MockReplica a;

    @BeforeEach
    void cluster() {
        k8s = new MockCluster();
        k8s.namespace("ml", null);
    }

    @AfterEach
    void down() { k8s.close(); }

    private void leaderOn(String... nodes) {
        for (String n : nodes) k8s.node(TestNodes.hgx(n, 8));
        a = k8s.replica("a").start();
        eventually(() -> a.ready() && a.leading(), "replica a ready and leading");
    }

    /** A pod of LeaderWorkerSet {@code lws}, group {@code group}, as its StatefulSets create it (worker 0 is the leader). */
    static Pod lws(String lws, int group, int worker, int size) {
        Pod p = Pods.gpuPod("vllm/vllm-openai", "[--tensor-parallel-size, '8', --pipeline-parallel-size, '" + size + "']", "8", null);
        String leader = lws + "-" + group;
        p.getMetadata().setName(worker == 0 ? leader : leader + "-" + worker);
        Map<String, String> labels = new HashMap<>(Map.of("leaderworkerset.sigs.k8s.io/name", lws));
        Map<String, String> ann = new HashMap<>(Map.of("leaderworkerset.sigs.k8s.io/size", Integer.toString(size)));
        if (worker > 0) { // the worker template carries the group index; the leader's is added by LWS's webhook (not run here)
            labels.put("leaderworkerset.sigs.k8s.io/group-index", Integer.toString(group));
            ann.put("leaderworkerset.sigs.k8s.io/leader-name", leader);
        }
        p.getMetadata().setLabels(labels);
        p.getMetadata().setAnnotations(ann);
        p.getMetadata().setOwnerReferences(List.of(new OwnerReference("apps/v1", true, true, "StatefulSet",
                worker == 0 ? lws : leader, "sts-uid")));
        return p;
    }

    private Pod admitAndCreate(Pod pod) { return k8s.admitAndCreate(a, pod); }

    private Pod live(Pod p) { return k8s.pod(p.getMetadata().getNamespace(), p.getMetadata().getName()).orElseThrow(); }

    private Set<String> uidsHolding() {
        return k8s.storeEntries().stream().map(e -> e.owner().podUid()).collect(Collectors.toSet());
    }

    /** Replica a leads over boards gpu-a and gpu-b, and a bound TP 8 pod takes one of them. */
    private Pod oneOfTwoCliquesTaken() {
        leaderOn("gpu-a", "gpu-b");
        Pod blocker = admitAndCreate(ClusterScenariosTest.tp(8, "blocker"));
        assertEquals(1, k8s.schedule());
        return blocker;
    }

    /**
     * The leader's group keeper has walked the queue since the last event and sees {@code waiting} groups of 2. The
     * queue is walked on events (and on a group's due time or the resync), not on every pass: an idle leader does not
     * walk again, so the figure of its last walk is the one to wait for (it counts only groups it saw).
     */
    private void keeperSees(int waiting) {
        eventually(() -> a.metrics.groupPasses.get() > 0 && a.metrics.groupsWaiting.getOrDefault(2, 0) == waiting,
                waiting + " groups of 2 waiting at the leader's last walk of the queue");
    }

    @Test
    void an_lws_tp8_x2_group_with_one_free_clique_holds_nothing_until_a_second_frees_then_both_ranks_are_released() {
        Pod blocker = oneOfTwoCliquesTaken();
        Pod leader = admitAndCreate(lws("llama-405b", 0, 0, 2));
        Pod worker = admitAndCreate(lws("llama-405b", 0, 1, 2));
        assertTrue(GateRelease.isGated(leader) && GateRelease.isGated(worker), "both ranks gated at admission");
        eventually(() -> a.pending.size() == 2, "both ranks queued");
        keeperSees(1);
        assertEquals(Set.of(live(blocker).getMetadata().getUid()), uidsHolding(), "the group holds nothing while one clique is free");
        assertTrue(GateRelease.isGated(live(leader)) && GateRelease.isGated(live(worker)));

        k8s.client.pods().inNamespace("ml").withName("blocker").delete();
        eventually(() -> !GateRelease.isGated(live(leader)) && !GateRelease.isGated(live(worker)), "both ranks released");
        Reservation l = ClusterScenariosTest.told(live(leader)).orElseThrow();
        Reservation w = ClusterScenariosTest.told(live(worker)).orElseThrow();
        assertNotEquals(l.node(), w.node(), "one clique each");
        assertEquals(0xffL, l.gpuMask());
        assertEquals(0xffL, w.gpuMask());
        eventually(() -> uidsHolding().equals(Set.of(live(leader).getMetadata().getUid(), live(worker).getMetadata().getUid())),
                "the store holds exactly the two ranks' entries, tied to their pods");
        assertEquals(2, k8s.schedule(), "both ranks bind where ACE pinned them");
    }

    @Test
    void a_leader_whose_worker_is_not_created_yet_holds_nothing_and_the_group_is_released_once_it_is() {
        leaderOn("gpu-a", "gpu-b");
        Pod leader = admitAndCreate(lws("sglang", 3, 0, 2));
        eventually(() -> a.pending.size() == 1, "the leader queued");
        keeperSees(1);
        assertTrue(k8s.storeEntries().isEmpty(), "half a group holds no GPU, even with both cliques free");
        Pod worker = admitAndCreate(lws("sglang", 3, 1, 2));
        eventually(() -> !GateRelease.isGated(live(leader)) && !GateRelease.isGated(live(worker)), "both ranks released together");
        assertEquals(2, k8s.storeEntries().size());
    }

    @Test
    void two_groups_competing_for_the_same_two_cliques_both_complete_one_after_the_other() {
        leaderOn("gpu-a", "gpu-b", "gpu-c");
        Pod l1 = admitAndCreate(lws("first", 0, 0, 2));
        Pod l2 = admitAndCreate(lws("second", 0, 0, 2));
        Pod w2 = admitAndCreate(lws("second", 0, 1, 2));
        Pod w1 = admitAndCreate(lws("first", 0, 1, 2));
        // One group is released whole (the second if the leader saw it whole first, else the older first); the other waits whole.
        eventually(() -> released(l1, w1) || released(l2, w2), "one group released whole");
        boolean firstWon = released(l1, w1);
        Pod[] won = firstWon ? new Pod[] {l1, w1} : new Pod[] {l2, w2};
        Pod[] waits = firstWon ? new Pod[] {l2, w2} : new Pod[] {l1, w1};
        keeperSees(1);
        assertTrue(GateRelease.isGated(live(waits[0])) && GateRelease.isGated(live(waits[1])), "the other waits whole");
        assertEquals(2, k8s.storeEntries().size(), "three cliques, four wanted: the waiting group holds none, no deadlock");
        assertEquals(2, k8s.schedule());

        for (Pod p : won) k8s.client.pods().inNamespace("ml").withName(p.getMetadata().getName()).delete();
        eventually(() -> released(waits[0], waits[1]), "the other group completes too");
        eventually(() -> uidsHolding().equals(Set.of(live(waits[0]).getMetadata().getUid(), live(waits[1]).getMetadata().getUid())),
                "only its ranks hold GPUs");
    }

    @Test
    void a_rank_lost_from_a_running_group_is_replaced_into_the_groups_rack() {
        for (String[] n : new String[][] {{"gpu-a", "r1"}, {"gpu-b", "r1"}, {"gpu-c", "r2"}, {"gpu-d", "r2"}, {"gpu-e", "r2"}}) {
            var node = TestNodes.hgx(n[0], 8);
            var labels = new HashMap<>(node.getMetadata().getLabels());
            labels.put("rack", n[1]);
            node.getMetadata().setLabels(labels);
            k8s.node(node);
        }
        a = k8s.replica("a").start();
        eventually(() -> a.ready() && a.leading(), "replica a ready and leading");
        Pod leader = lws("ring", 0, 0, 2);
        leader.getMetadata().getAnnotations().put("leaderworkerset.sigs.k8s.io/exclusive-topology", "rack");
        Pod worker = lws("ring", 0, 1, 2);
        worker.getMetadata().getAnnotations().put("leaderworkerset.sigs.k8s.io/exclusive-topology", "rack");
        Pod l = admitAndCreate(leader);
        Pod w = admitAndCreate(worker);
        eventually(() -> released(l, w), "the group released whole");
        assertEquals(2, k8s.schedule());
        String rackOfLeader = ClusterScenariosTest.told(live(l)).orElseThrow().node().compareTo("gpu-c") < 0 ? "r1" : "r2";
        assertEquals("r1", rackOfLeader, "the tightest rack that holds the group: r1 (2 boards) before r2 (3)");

        // The worker is lost; its StatefulSet re-creates it under the same name, and it is gated like any rank.
        k8s.client.pods().inNamespace("ml").withName(w.getMetadata().getName()).delete();
        eventually(() -> k8s.pod("ml", w.getMetadata().getName()).isEmpty(), "the worker is gone");
        Pod replacement = lws("ring", 0, 1, 2);
        replacement.getMetadata().getAnnotations().put("leaderworkerset.sigs.k8s.io/exclusive-topology", "rack");
        Pod again = admitAndCreate(replacement);
        assertTrue(GateRelease.isGated(again), "a replacement rank is gated");
        eventually(() -> !GateRelease.isGated(live(again)), "the replacement is released");
        String node = ClusterScenariosTest.told(live(again)).orElseThrow().node();
        assertTrue(node.equals("gpu-a") || node.equals("gpu-b"), "into the group's rack r1, got " + node);
    }

    /** The AceGroup object of LWS {@code lws} group 0 in namespace ml, as a user reads it; null when there is none. */
    private java.util.Map<String, Object> aceGroup(String lws) {
        var r = k8s.client.genericKubernetesResources(CrdGroupStatusStore.CONTEXT).inNamespace("ml").withName("lws." + lws + ".0").get();
        if (r == null) return null;
        @SuppressWarnings("unchecked")
        var status = (java.util.Map<String, Object>) r.getAdditionalProperties().get("status");
        return status;
    }

    @Test
    void the_leader_publishes_the_groups_state_waiting_then_placed_and_deletes_it_once_the_pods_are_gone() {
        Pod blocker = oneOfTwoCliquesTaken();
        Pod leader = admitAndCreate(lws("llama-405b", 0, 0, 2));
        eventually(() -> aceGroup("llama-405b") != null && "Assembling".equals(aceGroup("llama-405b").get("phase")), "published as Assembling");
        assertEquals(1, aceGroup("llama-405b").get("ranksSeen"));
        Pod worker = admitAndCreate(lws("llama-405b", 0, 1, 2));
        // Waiting once both ranks exist; for a moment the reason may be that the worker is not queued yet (the informer
        // records a rank's group before it queues the pod), then the leader's word on why the whole group does not fit
        eventually(() -> "Waiting".equals(aceGroup("llama-405b").get("phase"))
                && "no room for all 2 ranks (8 GPUs each) at once".equals(aceGroup("llama-405b").get("reason")),
                "Waiting once both ranks exist, because the whole group does not fit");
        assertEquals(0, aceGroup("llama-405b").get("ranksPlaced"));
        assertNotNull(aceGroup("llama-405b").get("waitingSince"));

        k8s.client.pods().inNamespace("ml").withName(blocker.getMetadata().getName()).delete();
        eventually(() -> "Placed".equals(aceGroup("llama-405b").get("phase")), "Placed once both ranks are released");
        assertEquals(2, aceGroup("llama-405b").get("ranksPlaced"));
        assertTrue(!GateRelease.isGated(live(leader)) && !GateRelease.isGated(live(worker)));

        k8s.client.pods().inNamespace("ml").withName(worker.getMetadata().getName()).delete();
        eventually(() -> "Degraded".equals(aceGroup("llama-405b").get("phase")), "Degraded when a rank is lost");
        k8s.client.pods().inNamespace("ml").withName(leader.getMetadata().getName()).delete();
        eventually(() -> aceGroup("llama-405b") == null, "deleted once the group's pods are all gone");
    }

    private boolean released(Pod leader, Pod worker) {
        return !GateRelease.isGated(live(leader)) && !GateRelease.isGated(live(worker));
    }

    @Test
    void a_half_written_group_left_by_a_crashed_leader_is_rolled_back_after_the_hold_timeout_and_completes_later() {
        Pod blocker = oneOfTwoCliquesTaken();
        Pod leader = admitAndCreate(lws("llama", 0, 0, 2));
        Pod worker = admitAndCreate(lws("llama", 0, 1, 2));
        eventually(() -> a.pending.size() == 2, "both ranks queued");
        // What a leader that died between the group's commits leaves: the leader rank's entry, tied to its pod, unpatched.
        String leaderUid = live(leader).getMetadata().getUid();
        var o = a.fleet.allocator().place(PlacementRequest.whole(Reservation.newId(), WorkloadClass.INFERENCE, 8, 8, List.of(Pool.INFERENCE),
                NodeConstraints.NONE).ownedBy(new Reservation.Owner(null, "ml", leader.getMetadata().getName(), leaderUid)), false, System.currentTimeMillis());
        assertTrue(o.placed());
        eventually(() -> uidsHolding().contains(leaderUid), "the orphan entry is in the store");
        eventually(() -> !uidsHolding().contains(leaderUid), "the half-written group is rolled back once its hold times out");
        assertTrue(GateRelease.isGated(live(leader)) && GateRelease.isGated(live(worker)), "no rank was released on half a group");

        k8s.client.pods().inNamespace("ml").withName(blocker.getMetadata().getName()).delete();
        eventually(() -> !GateRelease.isGated(live(leader)) && !GateRelease.isGated(live(worker)), "the group completes once both fit");
    }
}
