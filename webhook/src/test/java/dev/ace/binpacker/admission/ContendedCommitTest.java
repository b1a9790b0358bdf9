package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.ReservationStore;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 15: in a burst every replica packs onto the same nodes, and a reservation can lose its compare-and-swap
 * every time it tries. That used to be a 500, which failurePolicy Ignore turned into a pod admitted without ACE
 * (failing open). Now a TP pod waits at ACE's gate for the leader, and nothing is reserved for it.
 */
class ContendedCommitTest {
    /** A ledger in which another replica always got there first: each commit loses to an entry on the same GPUs. */
    static final class AlwaysBeaten implements ReservationStore {
        final List<Reservation> tried = new ArrayList<>();

        @Override
        public List<Reservation> commit(Reservation r) {
            tried.add(r);
            return List.of(new Reservation(Reservation.newId(), r.node(), r.gpuMask(), r.milliPerGpu(), 0, r.tp(), r.domain(),
                    0, true, new Reservation.Owner("someone-else-" + tried.size(), "other", "p", null)));
        }

        @Override
        public void remove(Reservation r) {}
    }

    @Test
    void a_tp_pod_whose_every_commit_loses_is_gated_for_the_leader_not_failed() {
        AlwaysBeaten store = new AlwaysBeaten();
        EngineFixture f = new EngineFixture(store, EngineFixture.hgx("hgx-0"), EngineFixture.hgx("hgx-1"));
        Pod pod = PodPolicyTest.tp(2);
        AdmissionResult r = f.mutate(pod);
        assertTrue(r.allowed(), "admitted, not a server error: " + r);
        Pod out = f.patched(pod, r);
        assertTrue(out.getSpec().getSchedulingGates().stream().anyMatch(g -> g.getName().equals(AceKeys.GATE)), "gated");
        assertFalse(out.getMetadata().getAnnotations().containsKey(AceKeys.RESERVATION), "no reservation is promised");
        assertTrue(out.getMetadata().getAnnotations().get(AceKeys.DECISION).contains("lost 5 races"),
                out.getMetadata().getAnnotations().get(AceKeys.DECISION));
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("gated until ACE's leader places it")), r.warnings().toString());
        assertEquals(5, store.tried.size(), "five tries, each on GPUs the last one had not lost");
        assertEquals(store.tried.size(), store.tried.stream().map(t -> t.node() + "/" + t.gpuMask()).distinct().count(),
                "every try chose GPUs the tries before it had not lost");
        assertEquals(0, f.allocator.ledger().all().stream().filter(Reservation::isAce)
                .filter(e -> e.owner().namespace() != null && e.owner().namespace().equals("ml")).count(), "nothing held for it");
    }

    /** A ledger the API server cannot be reached for (it restarts): every write fails on the connection. */
    static final class Unreachable implements ReservationStore {
        int tried;

        @Override
        public List<Reservation> commit(Reservation r) {
            tried++;
            throw new IllegalStateException("Connection was closed\n\tat the client's stack");
        }

        @Override
        public void remove(Reservation r) {}
    }

    /** Seen on the real API server (ApiServerRestartIT): a pod admitted while the API server stopped ran without ACE. */
    @Test
    void a_tp_pod_whose_ledger_write_fails_is_gated_for_the_leader_not_a_server_error_that_fails_open() {
        Unreachable store = new Unreachable();
        EngineFixture f = new EngineFixture(store, EngineFixture.hgx("hgx-0"));
        Pod pod = PodPolicyTest.tp(4);
        AdmissionResult r = f.mutate(pod);
        assertTrue(r.allowed(), "an AdmissionReview answer, not an HTTP 500 that failurePolicy Ignore turns into no ACE: " + r);
        Pod out = f.patched(pod, r);
        assertTrue(out.getSpec().getSchedulingGates().stream().anyMatch(g -> g.getName().equals(AceKeys.GATE)), "gated");
        assertFalse(out.getMetadata().getAnnotations().containsKey(AceKeys.RESERVATION), "no reservation is promised");
        String decision = out.getMetadata().getAnnotations().get(AceKeys.DECISION);
        assertTrue(decision.contains("the GpuLedger write for reservation") && decision.contains("failed (Connection was closed)"), decision);
        assertEquals(1, store.tried, "one write: a dead connection is not a lost race to retry against");
        assertEquals(0, f.allocator.ledger().all().stream().filter(Reservation::isAce).count(), "nothing held for it locally");
    }
}
