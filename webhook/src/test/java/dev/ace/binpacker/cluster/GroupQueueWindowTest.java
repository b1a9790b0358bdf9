package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.admission.GateRelease;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * All or nothing when the leader's walk falls between the two steps of one pod event: the informer records a
 * rank in the group book, then queues it (LocalView). A walk in between sees every pod of the group but only some
 * ranks queued; it must hold nothing for the group and release no rank, instead of placing the queued ranks
 * alone. (Seen once in CI on the mock API server: the TP 8 x 2 group of {@link GroupScenariosTest} held one clique
 * while the other was taken.) On the fake cluster the window is made exact by taking the worker out of the queue
 * after its event and putting it back as the informer's next step does.
 */
class GroupQueueWindowTest {
    private final FakeCluster c = new FakeCluster(16);
    private final Replica r = new Replica("r0", c.ledger, c.podApi, c.json, GatedQueueWalksTest.CONFIG, c.clock::get, Map.of());
    private final Watch watch = new Watch(c, r.view);
    private int requests;

    private Pod admitAndCreate(Pod p) {
        Pod out = r.admit(p, "req-" + (++requests));
        assertNotNull(out, p.getMetadata().getName() + " is admitted");
        Pod created = c.create(out);
        watch.deliverAll();
        return created;
    }

    private void pass() {
        c.clock.addAndGet(2_000);
        watch.deliverAll();
        r.reconciler.reconcile(() -> true);
        watch.deliverAll();
    }

    private Pod live(Pod p) { return c.pods.get(p.getMetadata().getUid()); }

    private long heldByGroup() {
        return r.allocator.read(a -> a.ledger().all().stream()
                .filter(e -> e.owner().podName() != null && e.owner().podName().startsWith("llama")).count());
    }

    @Test
    void a_walk_that_sees_every_rank_but_only_the_leader_queued_holds_nothing_and_releases_no_rank() {
        c.putNode(TestNodes.hgx("gpu-a", 8));
        c.putNode(TestNodes.hgx("gpu-b", 8));
        watch.deliverAll();
        Pod blocker = Pods.gpuPod("vllm/vllm-openai", "[--tensor-parallel-size, '8']", "8", null);
        blocker.getMetadata().setName("blocker");
        blocker = admitAndCreate(blocker);
        FakeScheduler.schedule(c);
        Pod leader = admitAndCreate(GroupScenariosTest.lws("llama", 0, 0, 2));
        Pod worker = admitAndCreate(GroupScenariosTest.lws("llama", 0, 1, 2));
        assertTrue(GateRelease.isGated(leader) && GateRelease.isGated(worker));
        assertTrue(r.view.groups().isGatedRank(worker.getMetadata().getUid()), "the group book has the worker");

        PendingDemand.Waiting queued = r.view.pending().remove(worker.getMetadata().getUid()).orElseThrow();
        pass();
        assertEquals(0, heldByGroup(), "one clique is free, but the group holds nothing while a rank is not queued");
        assertTrue(GateRelease.isGated(live(leader)) && GateRelease.isGated(live(worker)), "no rank released alone");

        r.view.pending().add(queued); // the informer's next step: the worker is queued
        c.deleteByUser(blocker.getMetadata().getUid());
        c.kubeletsFinish();
        pass();
        pass();
        assertFalse(GateRelease.isGated(live(leader)) || GateRelease.isGated(live(worker)), "both ranks released together");
        assertEquals(2, heldByGroup(), "both ranks hold their GPUs");
        assertNotEquals(ClusterScenariosTest.told(live(leader)).orElseThrow().node(), ClusterScenariosTest.told(live(worker)).orElseThrow().node(),
                "one clique each");
    }
}
