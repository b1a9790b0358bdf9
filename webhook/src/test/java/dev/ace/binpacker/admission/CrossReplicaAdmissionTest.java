package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.ReservationStore;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The API server sends a pod's /mutate, its reinvocation and its /validate call to any replica, each
 * under a request uid of its own. The replica that did not reserve may not have mirrored the entry yet
 * (its informer lags the other's write by milliseconds), so it reads the shared ledger object before
 * calling the reservation foreign.
 */
class CrossReplicaAdmissionTest {
    /** The GpuLedger objects as the API server holds them: what one replica committed, the other can read at once. */
    static final class SharedStore implements ReservationStore {
        final Map<String, Reservation> byId = new LinkedHashMap<>();
        boolean readable = true;

        @Override
        public synchronized List<Reservation> commit(Reservation r) {
            List<Reservation> conflicts = new ArrayList<>();
            for (Reservation e : byId.values()) {
                boolean sameId = e.id().equals(r.id());
                if (sameId && e.gpuMask() == r.gpuMask()) return List.of();
                if (sameId || (e.node().equals(r.node()) && (e.gpuMask() & r.gpuMask()) != 0)) conflicts.add(e);
            }
            if (conflicts.isEmpty()) byId.put(r.id(), r);
            return conflicts;
        }

        @Override
        public synchronized void remove(Reservation r) { byId.remove(r.id()); }

        @Override
        public synchronized Optional<Reservation> lookup(String node, String id) {
            return readable ? Optional.ofNullable(byId.get(id)).filter(r -> r.node().equals(node)) : Optional.empty();
        }
    }

    private final SharedStore store = new SharedStore();
    private final EngineFixture a = new EngineFixture(store, EngineFixture.hgx("hgx-0"), EngineFixture.hgx("hgx-1"));
    private final EngineFixture b = new EngineFixture(store, EngineFixture.hgx("hgx-0"), EngineFixture.hgx("hgx-1"));

    /** The pod replica A placed, as the API server stores it: patched, with a UID. */
    private Pod placedByA() {
        Pod pod = OwnOutputsTest.named(PodPolicyTest.tp(4), "llama-0");
        Pod fin = a.patched(pod, a.mutate(pod));
        fin.getMetadata().setUid("0f6f1c1e-0000-4000-8000-000000000001");
        return fin;
    }

    @Test
    void validate_on_the_replica_that_did_not_reserve_accepts_the_pod_the_other_placed() {
        Pod fin = placedByA();
        assertEquals(1, store.byId.size(), "replica A committed its reservation");
        assertEquals(0, b.allocator.ledger().size(), "replica B's mirror has not caught up");
        AdmissionResult v = b.engine.validate(b.request(fin, "ml", false));
        assertTrue(v.allowed(), v.message());
    }

    @Test
    void a_reinvocation_on_the_other_replica_keeps_the_reservation_and_makes_no_second_one() {
        Pod fin = placedByA();
        fin.getMetadata().setUid(null); // the mutating chain runs before the pod exists
        AdmissionResult again = b.mutate(fin);
        assertTrue(again.allowed());
        assertTrue(again.warnings().stream().noneMatch(w -> w.startsWith("dropped " + AceKeys.RESERVATION)), again.warnings().toString());
        assertEquals(1, store.byId.size(), "no second reservation for the same pod");
        assertEquals(0, b.allocator.ledger().size());
    }

    @Test
    void without_the_shared_record_the_other_replica_would_refuse_ace_s_own_pod() {
        store.readable = false; // what the read-through prevents: the mirror alone does not know the entry yet
        Pod fin = placedByA();
        AdmissionResult v = b.engine.validate(b.request(fin, "ml", false));
        assertFalse(v.allowed());
        assertTrue(v.message().contains("ACE made no such reservation"), v.message());
    }
}
