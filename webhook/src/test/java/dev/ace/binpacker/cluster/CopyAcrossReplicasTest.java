package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.admission.GateRelease;
import dev.ace.binpacker.admission.ReservationJson;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 34, provenance a client cannot steer, with two replicas sharing the ledger and no leader pass (so nothing is
 * tied yet: the window the issue measured). A reinvocation of the victim's /mutate that reaches the other replica
 * before the pod is stored is still recognised as ACE's own (the control). Once the pod is stored and that replica's
 * informer has seen it, a copy with the same generateName and the victim's reservation, pinned or not, with or
 * without the victim's {@code metadata.uid} set by the client, neither releases nor rides on it: it is decided
 * afresh, and the victim's entry is unchanged in both replicas.
 */
class CopyAcrossReplicasTest {
    private final FakeCluster c = new FakeCluster(4);
    private final Replica r0 = new Replica("r0", c.ledger, c.podApi, c.json, Soak.CONFIG, c.clock::get, Map.of());
    private final Replica r1 = new Replica("r1", c.ledger, c.podApi, c.json, Soak.CONFIG, c.clock::get, Map.of());
    private final Watch w0 = new Watch(c, r0.view);
    private final Watch w1 = new Watch(c, r1.view);

    private void deliver() {
        w0.deliverAll();
        w1.deliverAll();
    }

    @ParameterizedTest(name = "copy pinned: {0}, victim's UID set by the client: {1}")
    @CsvSource({"false, true", "true, true", "false, false", "true, false"})
    void a_copy_reaching_another_replica_takes_nothing_from_the_victim(boolean pinned, boolean forgedUid) {
        c.putNode(TestNodes.hgx("hgx-0", 8));
        c.putNode(TestNodes.hgx("hgx-1", 8));
        deliver();
        Pod victim = Pods.gpuPod("vllm/vllm-openai", "[--tensor-parallel-size, '4']", "4", null);
        victim.getMetadata().setName(null);
        victim.getMetadata().setGenerateName("llama-");
        Pod mutated = r0.admit(victim, "req-victim");
        assertNotNull(mutated);
        deliver();
        Reservation held = reservationOf(mutated);

        // The control: another webhook changed the pod after ACE, and the reinvocation reaches r1 before the pod exists.
        Pod reinvoked = r1.admit(mutated, "req-victim-reinvoked");
        assertEquals(held.id(), reservationOf(reinvoked).id(), "ACE's own reservation, recognised on the other replica");
        assertEquals(1, entries(r1), "decided once: no second reservation");

        Pod stored = c.create(reinvoked);
        deliver(); // both informers see the stored pod; the leader has not tied the entry

        Pod copy = c.json.convertValue(stored, Pod.class);
        copy.getMetadata().setName(null);
        copy.getMetadata().setResourceVersion(null);
        copy.getMetadata().setCreationTimestamp(null);
        if (!forgedUid) copy.getMetadata().setUid(null);
        copy.setStatus(null);
        if (!pinned) copy.getSpec().setAffinity(null);
        Pod thief = r1.admit(copy, "req-thief");
        deliver();
        for (Replica r : new Replica[] {r0, r1}) {
            Reservation kept = r.allocator.reservation(held.id()).orElseThrow(() -> new AssertionError("released on " + r.name));
            assertEquals(held.node() + " " + held.gpuMask(), kept.node() + " " + kept.gpuMask(), "the victim's entry is unchanged on " + r.name);
        }
        assertNotNull(thief, "decided afresh: there is room for it");
        Reservation own = reservationOf(thief);
        assertNotEquals(held.id(), own.id(), "the copy rides on nobody's reservation");
        assertTrue(!own.node().equals(held.node()) || (own.gpuMask() & held.gpuMask()) == 0, "no GPU twice");
        assertEquals(2, entries(r1));
    }

    private Reservation reservationOf(Pod p) {
        String a = p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get(AceKeys.RESERVATION);
        assertNotNull(a, "reserved: " + p.getMetadata());
        assertTrue(GateRelease.pinnedNode(p).isPresent(), "pinned");
        return ReservationJson.read(c.json, a, 0).orElseThrow();
    }

    private static int entries(Replica r) { return r.allocator.read(a -> (int) a.ledger().all().stream().filter(Reservation::isAce).count()); }
}
