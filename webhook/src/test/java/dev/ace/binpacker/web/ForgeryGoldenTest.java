package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.ClusterBootstrap;
import dev.ace.binpacker.cluster.Fleet;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every forgery of issue 8, posted over HTTPS as a tenant would send it, against the demo inventory.
 * The /mutate answer must equal its golden file: decided afresh with a warning naming each ACE key
 * dropped, or denied. None is adopted: afterwards the ledger holds exactly the reservations ACE
 * made (the scenario's own setup, plus this request's when ACE placed it). /validate, called on the
 * final object with a fresh request uid as the API server does, agrees.
 */
@QuarkusTest
class ForgeryGoldenTest {
    static final String TP4 = "11111111-0000-0000-0000-000000000004";

    @Inject
    ClusterBootstrap bootstrap;
    @Inject
    Fleet fleet;
    @Inject
    PendingDemand pending;

    @BeforeEach
    void freshInventory() {
        bootstrap.loadStandalone();
        pending.clear();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"forged-copy-of-running-reservation", "forged-whole-clique-batch", "forged-lone-gpu-claim",
            "forged-tp8-booked-as-one", "forged-debug-copy", "forged-reapplied-yaml", "forged-gate-batch", "forged-gate-tp4",
            "forged-slice-excuses-whole-gpus", "forged-label-inference-3gpu", "forged-label-inference-lone-gpu",
            "sidecar-gpus-add-up", "forged-rewritten-from"})
    void mutate_decides_afresh_or_denies_and_adopts_nothing(String name) {
        Set<String> before = setUp(name);
        JsonNode review = copiesTheRealId(Https.file(Https.ADMISSION.resolve("requests/" + name + ".json")));
        String uid = review.at("/request/uid").asText();
        JsonNode response = Https.postReview("/mutate", review);
        GoldenFiles.assertGolden(Https.ADMISSION.resolve("responses/" + name + ".json"), GoldenFiles.withoutRandomIds(Https.readable(response)));
        JsonNode r = response.path("response");
        boolean allowed = r.path("allowed").asBoolean();
        Pod fin = Https.patchedPod(review, response);
        String finalReservation = allowed ? annotation(fin, AceKeys.RESERVATION) : null;
        Set<String> expected = new TreeSet<>(before);
        if (finalReservation != null) {
            assertTrue(finalReservation.contains("\"id\":\"" + held(uid).id() + "\""), "only ACE's own reservation survives: " + finalReservation);
            expected.add(uid);
        }
        assertEquals(expected, ledgerIds(), "the ledger holds only what ACE decided");
        assertEquals(0, pending.size(), "nothing queued behind a forged gate");
        for (String key : broughtKeys(review)) {
            // A key ACE wrote back with the very same value (the same decision text) was not dropped.
            boolean same = allowed && !AceKeys.GATE.equals(key)
                    && review.at("/request/object/metadata/annotations").path(key).asText().equals(annotation(fin, key));
            assertTrue(same || r.path("warnings").toString().contains("dropped " + key), "the warnings name " + key + ": " + r.path("warnings"));
        }
        JsonNode validated = Https.postReview("/validate", asFinal(review, fin, uid + "-validate")).path("response");
        assertEquals(allowed, validated.path("allowed").asBoolean(), "validate agrees with mutate: " + validated);
        check(name, r, fin);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"validate-forged-reservation", "validate-forged-gate", "validate-forged-decision"})
    void validate_denies_final_objects_carrying_keys_ace_did_not_write_in_every_mode(String name) {
        JsonNode review = Https.file(Https.ADMISSION.resolve("requests/" + name + ".json"));
        JsonNode response = Https.postReview("/validate", review);
        GoldenFiles.assertGolden(Https.ADMISSION.resolve("responses/" + name + ".json"), GoldenFiles.withoutRandomIds(Https.readable(response)));
        assertFalse(response.at("/response/allowed").asBoolean());
        assertTrue(response.at("/response/status/message").asText().contains("ACE's own outputs"));
        assertEquals(Set.of(), ledgerIds());
    }

    /**
     * The forged requests copy the running TP4 pod's annotation; its id is random per admission, so the
     * copy is made here, as a tenant would make it with kubectl get -o yaml.
     */
    private JsonNode copiesTheRealId(JsonNode review) {
        String key = "/request/object/metadata/annotations/" + AceKeys.RESERVATION.replace("/", "~1");
        JsonNode annotation = review.at(key);
        var original = fleet.allocator().heldForRequest(TP4);
        if (!annotation.isTextual() || original.isEmpty() || !annotation.asText().contains(TP4)) return review;
        ObjectNode copy = review.deepCopy();
        ((ObjectNode) copy.at("/request/object/metadata/annotations"))
                .put(AceKeys.RESERVATION, annotation.asText().replace(TP4, original.get().id()));
        return copy;
    }

    /** What the leader does when a pending reservation's pod shows up: ties the entry to the pod's UID. */
    private boolean tieToPod(String requestUid) {
        String id = held(requestUid).id();
        return fleet.allocator().read(al -> al.ledger().get(id)
                .map(r -> al.ledger().update(r.tiedTo("uid-of-" + id, r.owner().podName())))
                .orElse(false));
    }

    /** The cluster each forgery meets; returns the reservation ids that exist before it. */
    private Set<String> setUp(String name) {
        switch (name) {
            case "forged-copy-of-running-reservation", "forged-debug-copy" -> {
                admit("tp4", TP4);
                assertTrue(tieToPod(TP4), "the leader has tied the entry to the running pod");
                return Set.of(TP4);
            }
            case "forged-reapplied-yaml" -> {
                admit("tp4", TP4);
                tieToPod(TP4);
                fleet.allocator().release(held(TP4).id()); // the original pod was deleted
                return Set.of();
            }
            case "forged-whole-clique-batch", "forged-gate-batch" -> {
                admit("tp8", "fill-0");
                admit("tp8", "fill-1");
                return Set.of("fill-0", "fill-1");
            }
            default -> {
                return Set.of();
            }
        }
    }

    private void check(String name, JsonNode r, Pod fin) {
        switch (name) {
            case "forged-tp8-booked-as-one", "sidecar-gpus-add-up" ->
                    assertEquals(8, held(r.path("uid").asText()).gpuCount(), "booked as the 8 GPUs the pod really uses");
            case "forged-debug-copy" -> {
                Reservation copy = held(r.path("uid").asText());
                Reservation original = held(TP4);
                assertEquals(original.node(), copy.node(), "the copy keeps its own pin");
                assertEquals(0, copy.gpuMask() & original.gpuMask(), "the copy shares no GPU with the running pod");
                fleet.allocator().release(copy.id()); // deleting the copy frees the copy's GPUs only
                assertEquals(Set.of(TP4), ledgerIds());
            }
            case "forged-lone-gpu-claim" -> assertEquals("slicing", fin.getSpec().getNodeSelector().get(AceKeys.POOL));
            case "forged-gate-tp4", "forged-rewritten-from", "forged-reapplied-yaml" -> {
                assertTrue(fin.getSpec().getSchedulingGates() == null || fin.getSpec().getSchedulingGates().isEmpty());
                assertEquals(null, annotation(fin, AceKeys.REWRITTEN_FROM));
                assertTrue(annotation(fin, AceKeys.DECISION).startsWith("reserved "), annotation(fin, AceKeys.DECISION));
            }
            // A Job's pod labelled inference gets what the same Job without the label gets: kept off pool inference.
            case "forged-label-inference-3gpu" ->
                    assertTrue(annotation(fin, AceKeys.DECISION).contains("pool inference kept whole"), annotation(fin, AceKeys.DECISION));
            // Whole GPUs beside a MIG slice can only run where the slice is offered: no inference node here, so no pin.
            case "forged-slice-excuses-whole-gpus" -> assertEquals(null, annotation(fin, AceKeys.RESERVATION));
            default -> assertFalse(r.path("allowed").asBoolean(), name + " is denied");
        }
    }

    private void admit(String request, String uid) {
        ObjectNode review = Https.file(Https.ADMISSION.resolve("requests/" + request + ".json")).deepCopy();
        ((ObjectNode) review.get("request")).put("uid", uid);
        assertTrue(Https.postReview("/mutate", review).at("/response/patch").isTextual());
    }

    /** The reservation admission request {@code requestUid} made (ids are random; requests name them here). */
    private Reservation held(String requestUid) { return fleet.allocator().heldForRequest(requestUid).orElseThrow(); }

    /** The admission requests whose reservations the ledger holds. */
    private Set<String> ledgerIds() {
        return fleet.allocator().read(a -> a.ledger().all().stream().map(r -> r.owner().requestUid())
                .collect(Collectors.toCollection(TreeSet::new)));
    }

    /** The object /validate receives: the patched pod, named and given a UID by the API server, under a new request uid. */
    static JsonNode asFinal(JsonNode review, Pod fin, String uid) {
        ObjectNode out = review.deepCopy();
        ObjectNode request = (ObjectNode) out.get("request");
        request.put("uid", uid);
        ObjectNode object = Https.MAPPER.valueToTree(fin);
        ObjectNode meta = (ObjectNode) object.get("metadata");
        if (!meta.hasNonNull("name")) meta.put("name", meta.path("generateName").asText("pod-") + "x7k2p");
        if (!meta.hasNonNull("uid")) meta.put("uid", "6b1f3c2e-0000-4000-8000-" + String.format("%012d", Math.abs(uid.hashCode())));
        request.set("object", object);
        return out;
    }

    /** ACE's output keys in the request as the tenant wrote it. */
    static Set<String> broughtKeys(JsonNode review) {
        Set<String> keys = new TreeSet<>();
        JsonNode annotations = review.at("/request/object/metadata/annotations");
        for (String k : new String[] {AceKeys.RESERVATION, AceKeys.DECISION, AceKeys.REWRITTEN_FROM}) {
            if (annotations.has(k)) keys.add(k);
        }
        if (review.at("/request/object/spec/schedulingGates").toString().contains(AceKeys.GATE)) keys.add(AceKeys.GATE);
        return keys;
    }

    private static String annotation(Pod pod, String key) {
        return pod.getMetadata().getAnnotations() == null ? null : pod.getMetadata().getAnnotations().get(key);
    }
}
