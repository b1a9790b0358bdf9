package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
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
}
