package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.admission.GateRelease;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.controller.ReconcilerConfig;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The gated queue is one key of the leader ({@code GateQueue}), walked when something that can change its
 * outcome happened, not on every pass: on the fake cluster and its clock, a full fleet of 1,000 nodes with 100
 * gated TP 8 waiters does no walk between resyncs, one at the resync, one for a new waiter and one for the pass
 * whose event freed a node. Walks are counted (the controller's reconciles), never timed. A walk that falls
 * between a rank's record in the group book and its queueing places nothing of the group.
 */
class GatedQueueWalksTest {
    static final ReconcilerConfig CONFIG = new ReconcilerConfig(120_000, 5_000, 3_000, ReconcilerConfig.EMPTY_REPORT_GRACE_MILLIS, 0, 60_000);
    static final int NODES = 1_000;
    static final int WAITERS = 100;

    /** The groups' times in one stretch without a resync (an hour), so every walk in it is an event's or a due time's. */
    static final ReconcilerConfig NO_RESYNC = new ReconcilerConfig(120_000, 5_000, 3_000, ReconcilerConfig.EMPTY_REPORT_GRACE_MILLIS, 0, 3_600_000);

    private final FakeCluster c = new FakeCluster(16);
    private Replica r;
    private Watch watch;
    private final List<Pod> running = new ArrayList<>();
    private final List<Pod> waiters = new ArrayList<>();
    private int requests;
    private long started = Long.MIN_VALUE;

    private void leader(ReconcilerConfig config) {
        r = new Replica("r0", c.ledger, c.podApi, c.json, config, c.clock::get, Map.of());
        watch = new Watch(c, r.view);
    }

    private Pod admitAndCreate(String name) {
        Pod p = Pods.gpuPod("vllm/vllm-openai", "[--tensor-parallel-size, '8']", "8", null);
        p.getMetadata().setName(name);
        return admitAndCreate(p);
    }

    private Pod admitAndCreate(Pod p) {
        String name = p.getMetadata().getName();
        Pod out = r.admit(p, "req-" + (++requests));
        assertNotNull(out, name + " is admitted");
        Pod created = c.create(out);
        watch.deliverAll();
        return created;
    }

    /** One 2 s pass of the leader: the watches delivered, the reconcile, the watches again. Its queue walks. */
    private long pass() {
        if (started == Long.MIN_VALUE) started = c.clock.get();
        long before = walks();
        watch.deliverAll();
        r.reconciler.reconcile(() -> true);
        watch.deliverAll();
        return walks() - before;
    }

    private long walks() { return r.reconciler.work().get("queue"); }

    private Pod live(Pod p) { return c.pods.get(p.getMetadata().getUid()); }

    /** Every node full with one bound TP 8, then {@link #WAITERS} gated TP 8 pods; passes until nothing is left to do. */
    private void fullFleetWithWaiters() {
        for (int i = 0; i < NODES; i++) c.putNode(TestNodes.hgx(String.format("hgx-%04d", i), 8));
        watch.deliverAll();
        for (int i = 0; i < NODES; i++) running.add(admitAndCreate("run-" + i));
        FakeScheduler.schedule(c);
        for (int i = 0; i < WAITERS; i++) {
            c.clock.addAndGet(10);
            Pod w = admitAndCreate("wait-" + i);
            assertTrue(GateRelease.isGated(w), "no room: " + w.getMetadata().getName() + " is gated");
            waiters.add(w);
        }
        for (int i = 0; i < 3; i++) {
            c.clock.addAndGet(2_000);
            pass();
        }
        assertEquals(WAITERS, r.pending.size(), "every waiter queued");
    }

    /** Passes every 2 s up to the next resync (excluded): the queue's walks in them. */
    private long passesUntilResync(long resyncAt, int[] passes) {
        long walks = 0;
        while (c.clock.get() + 2_000 < resyncAt) {
            c.clock.addAndGet(2_000);
            walks += pass();
            passes[0]++;
        }
        return walks;
    }

    @Test
    void an_idle_leader_with_100_waiters_walks_its_queue_only_at_the_resync_and_once_per_event() {
        leader(CONFIG);
        fullFleetWithWaiters();
        long firstResync = started + CONFIG.resyncMillis();
        passesUntilResync(firstResync, new int[1]); // the new leader's first minute: its counts published 50 nodes a pass
        c.clock.set(firstResync);
        assertEquals(1, pass(), "the resync walks the queue once");

        int[] passes = {0};
        long nextResync = firstResync + CONFIG.resyncMillis();
        long beforeAll = r.reconciler.work().get("passes");
        assertEquals(0, passesUntilResync(nextResync, passes), "no event: no walk of the queue in " + passes[0] + " passes");
        assertEquals(29, passes[0]);
        c.clock.set(nextResync);
        assertEquals(1, pass(), "the resync walks it once");
        long idlePasses = r.reconciler.work().get("passes") - beforeAll;
        System.out.printf("idle leader, %d nodes, %d gated waiters: %d passes a minute, %d walk of the queue (before: one per pass)%n",
                NODES, WAITERS, idlePasses, 1);

        c.clock.addAndGet(2_000);
        admitAndCreate("wait-late");
        assertEquals(1, pass(), "a new waiter: one walk");
        assertEquals(0, pass(), "and none after it");

        Pod oldest = waiters.get(0);
        assertTrue(GateRelease.isGated(live(oldest)));
        c.deleteByUser(running.get(500).getMetadata().getUid());
        c.kubeletsFinish();
        c.clock.addAndGet(2_000);
        assertEquals(1, pass(), "a freed node: one walk in the pass after its event");
        assertFalse(GateRelease.isGated(live(oldest)), "the oldest waiter released onto the freed node in that walk");
        long after = 0;
        for (int i = 0; i < 5; i++) {
            c.clock.addAndGet(2_000);
            after += pass();
        }
        assertEquals(1, after, "the release's own events (its ledger entry, the pod's patch) bring one more walk, then none");
        assertEquals(WAITERS, r.pending.size(), "the late waiter queued, the oldest released");
    }

    /** kubelet's updates of a running pod: a new resource version and a condition, nothing ACE decides on. */
    private void kubeletUpdates(Pod running) {
        Pod p = c.pods.get(running.getMetadata().getUid());
        var cond = new io.fabric8.kubernetes.api.model.PodConditionBuilder().withType("Ready").withStatus("True")
                .withLastTransitionTime(java.time.Instant.ofEpochMilli(c.clock.get()).toString()).build();
        p.getStatus().setConditions(new ArrayList<>(List.of(cond)));
        c.store(p);
    }

    @Test
    void status_updates_of_running_gpu_pods_are_no_event_for_the_queue_and_a_pod_that_finishes_is_one() {
        leader(CONFIG);
        fullFleetWithWaiters();
        long firstResync = started + CONFIG.resyncMillis();
        passesUntilResync(firstResync, new int[1]);
        c.clock.set(firstResync);
        assertEquals(1, pass(), "the resync walks the queue once");
        long entriesBefore = r.reconciler.work().get("entries");

        long walks = 0;
        for (int round = 0; round < 10; round++) { // 10 passes, each after 100 running pods' status changed
            for (int i = 0; i < 100; i++) kubeletUpdates(running.get(round * 100 + i));
            c.clock.addAndGet(2_000);
            walks += pass();
        }
        assertEquals(0, walks, "1,000 status updates of running GPU pods: no walk of the queue (before: one a pass)");
        assertEquals(entriesBefore, r.reconciler.work().get("entries"), "and no node's entries reconciled again");
        assertEquals(c.pods.get(running.get(0).getMetadata().getUid()).getMetadata().getResourceVersion(),
                r.view.pods().get(running.get(0).getMetadata().getUid()).orElseThrow().resourceVersion(),
                "the view still keeps each pod at its newest resource version (the precondition of ACE's deletes)");

        Pod oldest = waiters.get(0);
        c.complete(running.get(7).getMetadata().getUid());
        c.clock.addAndGet(2_000);
        assertEquals(1, pass(), "a pod that finished frees its node: one walk");
        assertFalse(GateRelease.isGated(live(oldest)), "the oldest waiter released onto the node it freed");
    }

    @Test
    void a_waiting_groups_times_come_back_as_requeue_after_earmark_hold_timeout_and_backoff_with_no_walk_between() {
        oneOfTwoCliquesTaken(NO_RESYNC);
        Pod leader = admitAndCreate(GroupScenariosTest.lws("llama", 0, 0, 2));
        Pod worker = admitAndCreate(GroupScenariosTest.lws("llama", 0, 1, 2));
        assertTrue(GateRelease.isGated(leader) && GateRelease.isGated(worker));
        pass();
        pass();
        long whole = c.clock.get();
        long earmarkAfter = 6 * NO_RESYNC.pendingTtlMillis(), hold = NO_RESYNC.pendingTtlMillis();
        assertEquals(java.util.OptionalLong.of(earmarkAfter), r.reconciler.untilNextDue(),
                "the whole group waits holding nothing; its walk comes back when it may earmark");
        assertEquals(0, walksUntil(whole + earmarkAfter - 1), "no walk before that");
        c.clock.set(whole + earmarkAfter);
        assertEquals(1, pass());
        assertEquals(1, heldByGroup(), "starving: it holds the free clique as the one earmark");
        long holding = c.clock.get();
        assertEquals(java.util.OptionalLong.of(hold + 1), r.reconciler.untilNextDue(), "and comes back when the hold times out");
        c.clock.addAndGet(2_000);
        assertEquals(1, pass(), "the earmark's own ledger write is an event: one walk");
        assertEquals(0, walksUntil(holding + hold), "then none until the hold times out");
        c.clock.set(holding + hold + 1);
        assertEquals(1, pass());
        assertEquals(0, heldByGroup(), "the hold timed out: freed");
        assertEquals(java.util.OptionalLong.of(2 * hold), r.reconciler.untilNextDue(), "it waits its doubled backoff before holding again");
        assertTrue(GateRelease.isGated(live(leader)) && GateRelease.isGated(live(worker)), "all or nothing: no rank released");
    }

    /**
     * All or nothing when a walk falls between the two steps of one pod event: the informer records a rank in the group
     * book, then queues it (LocalView). A walk in between sees every pod of the group but only some ranks queued; it
     * holds nothing for the group and releases no rank, instead of placing the queued ranks alone (seen once in CI on
     * the mock API server: the TP 8 x 2 group of {@link GroupScenariosTest} held one clique while the other was
     * taken). The window is made exact by taking the worker out of the queue after its event and putting it back as
     * the informer's next step does.
     */
    @Test
    void a_walk_that_sees_every_rank_but_only_the_leader_queued_holds_nothing_and_releases_no_rank() {
        Pod blocker = oneOfTwoCliquesTaken(CONFIG);
        Pod leader = admitAndCreate(GroupScenariosTest.lws("llama", 0, 0, 2));
        Pod worker = admitAndCreate(GroupScenariosTest.lws("llama", 0, 1, 2));
        assertTrue(GateRelease.isGated(leader) && GateRelease.isGated(worker));
        assertTrue(r.view.groups().isGatedRank(worker.getMetadata().getUid()), "the group book has the worker");

        PendingDemand.Waiting queued = r.view.pending().remove(worker.getMetadata().getUid()).orElseThrow();
        c.clock.addAndGet(2_000);
        pass();
        assertEquals(0, heldByGroup(), "one clique is free, but the group holds nothing while a rank is not queued");
        assertTrue(GateRelease.isGated(live(leader)) && GateRelease.isGated(live(worker)), "no rank released alone");

        r.view.pending().add(queued); // the informer's next step: the worker is queued
        c.deleteByUser(blocker.getMetadata().getUid());
        c.kubeletsFinish();
        walksUntil(c.clock.get() + 4_000);
        assertFalse(GateRelease.isGated(live(leader)) || GateRelease.isGated(live(worker)), "both ranks released together");
        assertEquals(2, heldByGroup(), "both ranks hold their GPUs");
        assertNotEquals(ClusterScenariosTest.told(live(leader)).orElseThrow().node(), ClusterScenariosTest.told(live(worker)).orElseThrow().node(),
                "one clique each");
    }

    /** A leader over boards gpu-a and gpu-b, and a bound TP 8 pod (returned) on one of them. */
    private Pod oneOfTwoCliquesTaken(ReconcilerConfig config) {
        leader(config);
        c.putNode(TestNodes.hgx("gpu-a", 8));
        c.putNode(TestNodes.hgx("gpu-b", 8));
        watch.deliverAll();
        Pod blocker = admitAndCreate("blocker");
        FakeScheduler.schedule(c);
        return blocker;
    }

    /** 2 s passes up to {@code t}: the walks in them. */
    private long walksUntil(long t) {
        long walks = 0;
        while (c.clock.get() + 2_000 <= t) {
            c.clock.addAndGet(2_000);
            walks += pass();
        }
        return walks;
    }

    private long heldByGroup() {
        return r.allocator.read(a -> a.ledger().all().stream().filter(e -> e.owner().podName() != null && e.owner().podName().startsWith("llama")).count());
    }
}
