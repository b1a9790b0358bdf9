package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.workload.AceKeys;
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
    void freed_capacity_goes_to_the_oldest_waiting_pod_of_the_highest_priority() {
        EngineFixture f = new EngineFixture(EngineFixture.hgx("hgx-0"));
        AdmissionRequest big = f.request(PodPolicyTest.tp(8), "ml", false);
        assertTrue(f.engine.mutate(big).allowed());
        Pod low = PodPolicyTest.tp(4);
        Pod highOld = PodPolicyTest.tp(4);
        highOld.getSpec().setPriority(1000);
        Pod highNew = PodPolicyTest.tp(4);
        highNew.getSpec().setPriority(1000);
        f.engine.mutate(f.request(low, "ml", false));
        f.clock.addAndGet(10);
        AdmissionRequest first = f.request(highOld, "ml", false);
        f.engine.mutate(first);
        f.clock.addAndGet(10);
        f.engine.mutate(f.request(highNew, "ml", false));
        assertEquals(3, f.pending.size());

        f.allocator.release(big.uid());
        var released = f.pending.releaseNext(f.allocator, f.clock.get()).orElseThrow();
        assertEquals(first.uid(), released.waiting().id());
        assertEquals(4, released.outcome().reservation().gpuCount());
        assertEquals(2, f.pending.size());
        assertTrue(f.pending.releaseNext(f.allocator, f.clock.get()).isPresent(), "the other half of the board fits the next one");
        assertTrue(f.pending.releaseNext(f.allocator, f.clock.get()).isEmpty(), "board full again");
    }
}
