package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The gated queue with an earmark (issue 20, CHANGELOG known issue "gated queue overtaking"): a later,
 * smaller gated pod is not released onto the node earmarked for an older gated TP 8 while it fits
 * elsewhere, so that node drains and the TP 8 starts there.
 */
class GateEarmarkTest {
    private final FakeCluster c = new FakeCluster(20);
    private final Replica r = new Replica("r0", c.ledger, c.podApi, c.json, Soak.CONFIG, c.clock::get, Map.of());
    private final Watch watch = new Watch(c, r.view);
    private int requests;

    private Pod admitAndCreate(int gpus, String name) {
        Pod p = Pods.gpuPod("vllm/vllm-openai", "[--tensor-parallel-size, '" + gpus + "']", Integer.toString(gpus), null);
        p.getMetadata().setName(name);
        p.getMetadata().setOwnerReferences(List.of(new OwnerReference("apps/v1", true, true, "ReplicaSet", "rs-" + name, "uid-rs-" + name)));
        Pod out = r.admit(p, "req-" + (++requests));
        assertNotNull(out, name + " is admitted");
        c.clock.addAndGet(1_000);
        Pod created = c.create(out);
        settle();
        return created;
    }

    /** Watches delivered, scheduler run, the leader's pass, watches again. */
    private void settle() {
        watch.deliverAll();
        FakeScheduler.schedule(c);
        watch.deliverAll();
        r.reconciler.reconcile(() -> true);
        watch.deliverAll();
    }

    private Pod live(Pod p) { return c.pods.get(p.getMetadata().getUid()); }

    private Reservation told(Pod p) { return ClusterScenariosTest.told(live(p)).orElseThrow(() -> new AssertionError(p.getMetadata().getName() + " carries no reservation")); }

    private void gone(Pod p) {
        c.deleteByUser(p.getMetadata().getUid());
        c.kubeletsFinish();
    }

    /** hgx-a and hgx-b, each full with two TP 4 pods: a1, a2 on hgx-a, b1, b2 on hgx-b. */
    private List<Pod> twoFullBoards() {
        c.putNode(TestNodes.hgx("hgx-a", 8));
        c.putNode(TestNodes.hgx("hgx-b", 8));
        watch.deliverAll();
        return List.of(admitAndCreate(4, "a1"), admitAndCreate(4, "a2"), admitAndCreate(4, "b1"), admitAndCreate(4, "b2"));
    }

    @Test
    void a_later_gated_tp2_is_released_elsewhere_not_onto_the_node_earmarked_for_an_older_gated_tp8_which_then_starts_there() {
        List<Pod> full = twoFullBoards();
        Pod a1 = full.get(0);
        Pod a2 = full.get(1);
        Pod b1 = full.get(2);
        Pod b2 = full.get(3);
        assertEquals("hgx-a", told(a1).node());
        assertEquals("hgx-a", told(a2).node());
        assertEquals("hgx-b", told(b1).node());
        assertEquals("hgx-b", told(b2).node());

        Pod big = admitAndCreate(8, "big");
        Pod small = admitAndCreate(2, "small");
        assertTrue(Soak.gated(live(big)) && Soak.gated(live(small)), "both boards full: both wait, the TP 8 first");
        assertEquals("hgx-a", r.allocator.earmarkedFor(big.getMetadata().getUid()).orElseThrow(),
                "the oldest waiter has the node closest to a free 8-clique (a tie: the lower index)");

        // one TP 4 leaves each board: the TP 2 fits on both, equally well; without the earmark it took hgx-a (lowest index)
        gone(a2);
        gone(b2);
        settle();
        assertFalse(Soak.gated(live(small)), "the TP 2 is released: it fits elsewhere");
        assertEquals("hgx-b", told(small).node(), "not onto the node earmarked for the older TP 8");
        assertTrue(Soak.gated(live(big)), "no 8-clique is free yet");

        gone(a1);
        settle();
        assertFalse(Soak.gated(live(big)), "hgx-a drained: the TP 8 starts there");
        assertEquals("hgx-a", told(big).node());
        assertEquals(0xffL, told(big).gpuMask());
    }

    @Test
    void a_later_gated_tp2_that_fits_only_on_the_earmarked_node_is_still_released_there() {
        c.putNode(TestNodes.hgx("hgx-a", 8));
        watch.deliverAll();
        Pod a1 = admitAndCreate(4, "a1");
        Pod a2 = admitAndCreate(4, "a2");
        Pod big = admitAndCreate(8, "big");
        Pod small = admitAndCreate(2, "small");
        assertTrue(Soak.gated(live(big)) && Soak.gated(live(small)));
        gone(a2);
        settle();
        assertFalse(Soak.gated(live(small)), "the earmark never makes a pod wait that fits nowhere else");
        assertEquals("hgx-a", told(small).node());
        assertTrue(Soak.gated(live(big)));
        assertEquals("hgx-a", told(a1).node());
    }

    @Test
    void a_replica_that_does_not_lead_keeps_its_admissions_off_the_node_earmarked_for_the_oldest_waiter() {
        Replica follower = new Replica("r1", c.ledger, c.podApi, c.json, Soak.CONFIG, c.clock::get, Map.of());
        Watch followerWatch = new Watch(c, follower.view);
        List<Pod> full = twoFullBoards();
        Pod a1 = full.get(0);
        Pod a2 = full.get(1);
        Pod b1 = full.get(2);
        Pod b2 = full.get(3);
        Pod big = admitAndCreate(8, "big");
        assertTrue(Soak.gated(live(big)));
        assertEquals("hgx-a", r.allocator.earmarkedFor(big.getMetadata().getUid()).orElseThrow());
        gone(a2);
        gone(b2);
        settle();
        assertTrue(Soak.gated(live(big)), "no 8-clique is free yet");

        // The follower's pass (it does not lead): it knows the queue from its watches, and now the earmark too.
        followerWatch.deliverAll();
        follower.reconciler.reconcile(() -> false);
        assertEquals("hgx-a", follower.allocator.earmarkedFor(big.getMetadata().getUid()).orElseThrow(), "the follower earmarks as the leader does");
        Pod p = Pods.gpuPod("vllm/vllm-openai", "[--tensor-parallel-size, '2']", "2", null);
        p.getMetadata().setName("direct");
        Pod out = follower.admit(p, "req-direct");
        assertNotNull(out);
        Pod created = c.create(out);
        assertEquals("hgx-b", told(created).node(), "a TP 2 admitted by the follower fits elsewhere: not onto the earmarked node");
        assertEquals("hgx-a", told(a1).node());
        assertEquals("hgx-b", told(b1).node());
    }
}
