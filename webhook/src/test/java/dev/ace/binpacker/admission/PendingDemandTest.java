package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.WorkloadClass;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import org.junit.jupiter.api.Test;

class PendingDemandTest {

    @Test
    void a_tp_pod_finding_no_free_clique_is_gated_and_counted() {
        EngineFixture f = new EngineFixture(EngineFixture.hgx("hgx-0"));
        assertTrue(f.mutate(PodPolicyTest.tp(8)).allowed());
        Pod pod = PodPolicyTest.tp(4);
        AdmissionResult r = f.mutate(pod);
        Pod out = f.patched(pod, r);
        assertEquals(AceKeys.GATE, out.getSpec().getSchedulingGates().get(0).getName());
        assertTrue(out.getMetadata().getAnnotations().get(AceKeys.DECISION).startsWith("waiting for 4 free GPUs in one NVLink clique"));
        assertEquals(1, f.pending.size());
    }

    @Test
    void the_queue_puts_the_oldest_waiting_pod_of_the_highest_priority_first() {
        EngineFixture f = new EngineFixture(EngineFixture.hgx("hgx-0"));
        assertTrue(f.engine.mutate(f.request(PodPolicyTest.tp(8), "ml", false)).allowed());
        Pod low = PodPolicyTest.tp(4);
        Pod highOld = PodPolicyTest.tp(4);
        highOld.getSpec().setPriority(1000);
        Pod highNew = PodPolicyTest.tp(4);
        highNew.getSpec().setPriority(1000);
        AdmissionRequest lowReq = f.request(low, "ml", false);
        f.engine.mutate(lowReq);
        f.clock.addAndGet(10);
        AdmissionRequest first = f.request(highOld, "ml", false);
        f.engine.mutate(first);
        f.clock.addAndGet(10);
        AdmissionRequest second = f.request(highNew, "ml", false);
        f.engine.mutate(second);

        assertEquals(java.util.List.of(first.uid(), second.uid(), lowReq.uid()),
                f.pending.waiting().stream().map(PendingDemand.Waiting::id).toList());
        f.pending.remove(first.uid());
        assertEquals(second.uid(), f.pending.waiting().get(0).id(), "the next in line moves up");
    }

    @Test
    void pods_created_in_one_second_are_served_in_the_order_they_joined_not_by_uid() {
        PendingDemand q = new PendingDemand(dev.ace.binpacker.observability.Metrics.NOOP);
        long second = 1_700_000_000_000L; // creationTimestamp has whole seconds: both pods tie on it
        PlacementRequest tp2 = PlacementRequest.whole("r2", WorkloadClass.INFERENCE, 2, 2, List.of(Pool.INFERENCE), NodeConstraints.NONE);
        PlacementRequest tp1 = PlacementRequest.whole("r1", WorkloadClass.INFERENCE, 1, 1, List.of(Pool.INFERENCE), NodeConstraints.NONE);
        // UIDs chosen so a UID tie-break would put the later pod first
        q.add(new PendingDemand.Waiting("ffff", "ns/later-0-0", tp2, 0, second));
        q.add(new PendingDemand.Waiting("0000", "ns/later-0-1", tp1, 0, second));
        q.add(new PendingDemand.Waiting("9999", "ns/older", tp2, 0, second - 1000));
        assertEquals(List.of("ns/older", "ns/later-0-0", "ns/later-0-1"), q.waiting().stream().map(PendingDemand.Waiting::podKey).toList());
        q.add(new PendingDemand.Waiting("ffff", "ns/later-0-0", tp2, 0, second));
        assertEquals(List.of("ns/older", "ns/later-0-0", "ns/later-0-1"), q.waiting().stream().map(PendingDemand.Waiting::podKey).toList(),
                "a pod seen again keeps its place");
        q.remove("ffff");
        q.add(new PendingDemand.Waiting("ffff", "ns/later-0-0", tp2, 0, second));
        assertEquals(List.of("ns/older", "ns/later-0-1", "ns/later-0-0"), q.waiting().stream().map(PendingDemand.Waiting::podKey).toList(),
                "a pod that left the queue and came back joins behind those of its second");
    }
}
