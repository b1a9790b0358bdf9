package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * ACE recognises its own output keys without trusting the request uid: the API server gives every
 * webhook call a new one, so a reinvocation and the /validate call arrive under uids /mutate never
 * saw ({@link EngineFixture#request} numbers each call afresh, as the API server does).
 */
class OwnOutputsTest {

    static Pod named(Pod pod, String name) {
        pod.getMetadata().setName(name);
        return pod;
    }

    /** What the API server stores and /validate sees: ACE's patch applied, a UID assigned. */
    static Pod created(EngineFixture f, Pod pod, AdmissionResult r, String uid) {
        Pod out = f.patched(pod, r);
        out.getMetadata().setUid(uid);
        return out;
    }

    private static String reservationId(Pod pod) {
        String json = pod.getMetadata().getAnnotations().get(AceKeys.RESERVATION);
        return ReservationJson.read(Json.newMapper(), json, 0).orElseThrow().id();
    }

    @Test
    void a_reinvocation_under_a_new_request_uid_leaves_aces_reservation_as_it_is() {
        EngineFixture f = EngineFixture.small();
        Pod pod = named(PodPolicyTest.tp(4), "llama-0");
        Pod once = f.patched(pod, f.mutate(pod));
        AdmissionResult again = f.mutate(once);
        assertTrue(again.allowed());
        assertNull(again.patch(), "nothing decided twice");
        assertTrue(again.warnings().isEmpty(), again.warnings().toString());
        assertEquals(1, f.allocator.ledger().size());
    }

    @Test
    void validate_accepts_the_final_object_under_its_own_uid_and_checks_pin_and_size() {
        EngineFixture f = EngineFixture.small();
        Pod pod = named(PodPolicyTest.tp(4), "llama-0");
        Pod fin = created(f, pod, f.mutate(pod), "uid-of-the-pod");
        assertTrue(f.engine.validate(f.request(fin, "ml", false)).allowed());
        assertEquals(1, f.allocator.ledger().size());
    }

    @Test
    void a_later_webhook_that_drops_the_pin_gets_the_pod_denied_and_its_gpus_released() {
        EngineFixture f = EngineFixture.small();
        Pod pod = named(PodPolicyTest.tp(4), "llama-0");
        Pod fin = created(f, pod, f.mutate(pod), "uid-of-the-pod");
        fin.getSpec().setAffinity(null);
        AdmissionResult v = f.engine.validate(f.request(fin, "ml", false));
        assertFalse(v.allowed());
        assertTrue(v.message().contains("not pinned to node hgx-0"), v.message());
        assertEquals(0, f.allocator.ledger().size(), "the pod will not exist: its GPUs are free again");
    }

    @Test
    void a_pod_grown_past_its_reservation_is_denied_at_validate() {
        EngineFixture f = EngineFixture.small();
        Pod pod = named(PodPolicyTest.tp(4), "llama-0");
        Pod fin = created(f, pod, f.mutate(pod), "uid-of-the-pod");
        fin.getSpec().getContainers().get(0).getResources().getLimits().put(AceKeys.GPU, new io.fabric8.kubernetes.api.model.Quantity("8"));
        AdmissionResult v = f.engine.validate(f.request(fin, "ml", false));
        assertFalse(v.allowed());
        assertTrue(v.message().contains("asks for 8 whole GPUs, its reservation holds 4"), v.message());
    }

    @Test
    void a_reinvocation_after_a_webhook_changed_the_gpu_count_releases_the_old_reservation_and_decides_again() {
        EngineFixture f = EngineFixture.small();
        Pod pod = named(PodPolicyTest.tp(4), "llama-0");
        Pod once = f.patched(pod, f.mutate(pod));
        String first = reservationId(once);
        once.getSpec().getContainers().get(0).getResources().getLimits().put(AceKeys.GPU, new io.fabric8.kubernetes.api.model.Quantity("2"));
        Pod twice = f.patched(once, f.mutate(once));
        assertTrue(f.allocator.reservation(first).isEmpty(), "the 4-GPU reservation went back");
        assertEquals(2, f.allocator.reservation(reservationId(twice)).orElseThrow().gpuCount());
        assertEquals(1, f.allocator.ledger().size());
    }

    @Test
    void another_pods_pending_reservation_is_not_this_pods() {
        EngineFixture f = EngineFixture.small();
        Pod a = f.patched(named(PodPolicyTest.tp(4), "a"), f.mutate(named(PodPolicyTest.tp(4), "a")));
        Pod b = named(PodPolicyTest.tp(4), "b");
        b.getMetadata().setAnnotations(Map.of(AceKeys.RESERVATION, a.getMetadata().getAnnotations().get(AceKeys.RESERVATION)));
        AdmissionResult r = f.mutate(b);
        assertTrue(r.warnings().get(0).startsWith("dropped " + AceKeys.RESERVATION), r.warnings().toString());
        assertEquals(2, f.allocator.ledger().size(), "b got a reservation of its own");
        assertFalse(reservationId(f.patched(b, r)).equals(reservationId(a)));
    }

    @Test
    void a_confirmed_reservation_is_never_taken_over_even_by_a_pod_of_the_same_name() {
        EngineFixture f = EngineFixture.small();
        Pod pod = named(PodPolicyTest.tp(4), "llama-0");
        Pod running = f.patched(pod, f.mutate(pod));
        assertTrue(EngineFixture.tieToPod(f.allocator, reservationId(running)), "the leader tied the entry to the pod");
        AdmissionResult copy = f.mutate(running);
        assertTrue(copy.warnings().get(0).startsWith("dropped " + AceKeys.RESERVATION), copy.warnings().toString());
        assertEquals(2, f.allocator.ledger().size());
    }

    @Test
    void re_posting_never_renews_a_pending_reservation_and_after_expiry_a_new_one_is_made() {
        EngineFixture f = EngineFixture.small();
        long t0 = f.clock.get();
        Pod pod = named(PodPolicyTest.tp(4), "llama-0");
        Pod fin = f.patched(pod, f.mutate(pod));
        String id = reservationId(fin);
        f.clock.set(t0 + 240_000);
        assertNull(f.mutate(fin).patch());
        assertEquals(t0, f.allocator.reservation(id).orElseThrow().createdAtMillis(), "not renewed by the re-post");
        // the leader expires it after its TTL (cluster/EntryKeeper): the entry is released
        assertEquals(id, f.allocator.release(id).map(Reservation::id).orElseThrow());
        f.clock.set(t0 + 360_000);
        AdmissionResult after = f.mutate(fin);
        String renewed = reservationId(f.patched(fin, after));
        assertFalse(renewed.equals(id), "a new request is a new reservation");
        assertEquals(t0 + 360_000, f.allocator.reservation(renewed).orElseThrow().createdAtMillis());
    }

    @Test
    void a_retried_request_uid_gets_its_own_reservation_back() {
        EngineFixture f = EngineFixture.small();
        AdmissionRequest req = f.request(named(PodPolicyTest.tp(4), "llama-0"), "ml", false);
        AdmissionResult first = f.engine.mutate(req);
        AdmissionResult retry = f.engine.mutate(req);
        assertEquals(first.patch(), retry.patch());
        assertEquals(1, f.allocator.ledger().size());
    }

    @Test
    void a_reinvoked_sliced_pod_keeps_aces_rewrite() {
        EngineFixture f = EngineFixture.small();
        Pod pod = BackgroundAndModesTest.job(1, null);
        Pod once = f.patched(pod, f.mutate(pod));
        assertEquals("nvidia.com/gpu=1", once.getMetadata().getAnnotations().get(AceKeys.REWRITTEN_FROM));
        AdmissionResult again = f.mutate(once);
        assertNull(again.patch());
        assertTrue(f.engine.validate(f.request(once, "ml", false)).allowed());
    }

    @Test
    void a_reinvoked_warn_record_stays_and_validate_accepts_it() {
        EngineFixture f = EngineFixture.small();
        f.modes.put("ml", NamespaceMode.WARN);
        Pod pod = BackgroundAndModesTest.job(3, BackgroundAndModesTest.H100);
        Pod once = f.patched(pod, f.mutate(pod));
        assertTrue(once.getMetadata().getAnnotations().get(AceKeys.DECISION).startsWith("warn: would deny"));
        assertNull(f.mutate(once).patch());
        assertTrue(f.engine.validate(f.request(once, "ml", false)).allowed());
        f.modes.put("ml", NamespaceMode.AUDIT);
        assertFalse(f.engine.validate(f.request(once, "ml", false)).allowed(), "a warn record is not an audit record");
    }

    @Test
    void a_reinvoked_gated_pod_stays_gated_once() {
        EngineFixture f = EngineFixture.small();
        for (int i = 0; i < 2; i++) f.mutate(PodPolicyTest.tp(8));
        Pod pod = named(PodPolicyTest.tp(8), "waits");
        Pod gated = f.patched(pod, f.mutate(pod));
        assertTrue(GateRelease.isGated(gated));
        assertNull(f.mutate(gated).patch());
        assertEquals(1, f.pending.size());
        assertTrue(f.engine.validate(f.request(gated, "ml", false)).allowed());
    }

    @Test
    void exempt_namespaces_are_not_checked_at_all() {
        EngineFixture f = EngineFixture.small();
        f.modes.put("ml", NamespaceMode.EXEMPT);
        Pod pod = named(PodPolicyTest.tp(4), "x");
        pod.getMetadata().setAnnotations(Map.of(AceKeys.RESERVATION, "{\"id\":\"forged\",\"node\":\"hgx-0\",\"gpus\":[0]}"));
        assertTrue(f.engine.validate(f.request(pod, "ml", false)).allowed());
        assertNull(f.mutate(pod).patch());
    }
}
