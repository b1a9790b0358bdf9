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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The tricks of issue 17, posted over HTTPS against the demo inventory, each beside its control: the
 * same pod without the trick (for an owner or a class, the same pod owned by a batch/v1 Job). Each
 * answer equals its golden file, and the trick gets exactly what its control gets: no more GPUs, no
 * clique the control would not get, nobody else's reservation.
 */
@QuarkusTest
class ShapeTricksGoldenTest {
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

    @ParameterizedTest(name = "{0} gets what {1} gets")
    @CsvSource({
        "shape-bare-pod-3gpu, shape-job-3gpu, fresh",
        "shape-pytorchjob-3gpu, shape-job-3gpu, fresh",
        "shape-nodename-3gpu, shape-job-nodename-3gpu, fresh",
        "shape-decoy-quotes-job-3gpu, shape-job-3gpu, fresh",
        "shape-mpijob-8gpu, shape-job-8gpu, one-free-clique",
        "shape-raycluster-8gpu, shape-job-8gpu, one-free-clique",
        "shape-argo-8gpu, shape-job-8gpu, one-free-clique",
        "shape-volcano-8gpu, shape-job-8gpu, one-free-clique",
        "shape-deployment-trainer-8gpu, shape-job-8gpu, one-free-clique",
        "shape-label-inference-job-8gpu, shape-job-8gpu, one-free-clique",
        "shape-label-embedding-job-8gpu, shape-job-8gpu, one-free-clique",
        "shape-statefulset-lone-gpu, shape-job-lone-gpu, fresh",
        "shape-daemonset-lone-gpu, shape-job-affinity-lone-gpu, fresh"})
    void a_trick_gets_no_more_than_the_same_pod_without_it(String trick, String control, String cluster) {
        JsonNode withTrick = answer(trick, cluster);
        Set<String> trickLedger = ledger();
        JsonNode without = answer(control, cluster);
        boolean allowed = without.at("/response/allowed").asBoolean();
        assertEquals(allowed, withTrick.at("/response/allowed").asBoolean(), trick + ": " + withTrick.at("/response/status/message"));
        assertEquals(ledger(), trickLedger, "the trick holds what the control holds");
        if (!allowed) assertFalse(withTrick.at("/response/status/message").asText().isEmpty());
        String dec = decisionOf(trick, withTrick);
        String decControl = decisionOf(control, without);
        assertEquals(decControl == null, dec == null, "both placed or neither: " + dec + " / " + decControl);
    }

    @Test
    void whole_gpus_beside_a_mig_slice_are_never_pinned_to_a_node_without_that_slice() {
        JsonNode trick = answer("shape-mig-beside-whole-gpus", "fresh");
        Pod fin = Https.patchedPod(Https.file(request("shape-mig-beside-whole-gpus")), trick);
        String reservation = fin.getMetadata().getAnnotations() == null ? null : fin.getMetadata().getAnnotations().get(AceKeys.RESERVATION);
        assertTrue(reservation == null || reservation.contains("h100-mig-"), "pinned only to a node with MIG: " + reservation);
        JsonNode control = answer("shape-job-2gpu-tolerating-slicing", "fresh");
        Pod c = Https.patchedPod(Https.file(request("shape-job-2gpu-tolerating-slicing")), control);
        // the batch-pool rule: pool general's bridged pair first (the MIG-only slicing nodes offer no whole GPUs)
        assertTrue(c.getMetadata().getAnnotations().get(AceKeys.RESERVATION).contains("\"node\":\"a100-pcie-"),
                "the control, without the slice, is placed on a node without MIG");
    }

    /**
     * A second pod of the victim's generateName carrying the victim's reservation (kubectl get -o json, name dropped):
     * pinned (it would ride on the reservation) or unpinned (kubectl debug --copy-to; it would make /mutate release the
     * victim's GPUs), with the UID dropped (the control) or kept as the victim's (issue 34: a client-set
     * {@code metadata.uid} at /mutate, before the API server assigns one, proves nothing). Every way it gets what the
     * copy without ACE's keys gets, a reservation of its own, and the victim keeps every GPU.
     */
    @ParameterizedTest(name = "pinned copy: {0}, the victim''s UID set by the client: {1}")
    @CsvSource({"true, false", "false, false", "true, true", "false, true"})
    void a_copy_of_a_pod_with_its_generate_name_and_reservation_takes_nothing_from_it(boolean pinned, boolean forgedUid) {
        JsonNode victimReview = Https.file(request("tp4"));
        JsonNode admitted = Https.postReview("/mutate", victimReview);
        Pod victim = Https.patchedPod(victimReview, admitted);
        JsonNode finalReview = ForgeryGoldenTest.asFinal(victimReview, victim, "victim-validate");
        JsonNode validated = Https.postReview("/validate", finalReview);
        assertTrue(validated.at("/response/allowed").asBoolean(), validated.toString());
        Pod stored = Https.MAPPER.convertValue(finalReview.at("/request/object"), Pod.class); // as the tenant reads it
        assertFalse(stored.getMetadata().getUid().isEmpty());
        Reservation before = fleet.allocator().heldForRequest(victimReview.at("/request/uid").asText()).orElseThrow();

        JsonNode control = Https.postReview("/mutate", copyOf(victimReview, stored, pinned, false, false, "control"));
        int controlGpus = fleet.allocator().heldForRequest("control").orElseThrow().gpuCount();
        fleet.allocator().release(fleet.allocator().heldForRequest("control").orElseThrow().id()); // the control pod is deleted

        ObjectNode copy = copyOf(victimReview, stored, pinned, true, forgedUid, "thief");
        assertEquals(forgedUid, stored.getMetadata().getUid().equals(copy.at("/request/object/metadata/uid").asText()));
        JsonNode stolen = Https.postReview("/mutate", copy);
        GoldenFiles.assertGolden(Https.ADMISSION.resolve("responses/shape-copy-" + (pinned ? "pinned" : "unpinned")
                        + (forgedUid ? "-forged-uid" : "") + ".json"),
                GoldenFiles.withoutRandomIds(Https.readable(stolen)));
        assertTrue(stolen.at("/response/warnings").toString().contains("dropped " + AceKeys.RESERVATION), stolen.toString());
        Reservation after = fleet.allocator().heldForRequest(victimReview.at("/request/uid").asText()).orElseThrow();
        assertEquals(before, after, "the victim keeps its reservation, unchanged");
        Reservation thief = fleet.allocator().heldForRequest("thief").orElseThrow();
        assertEquals(0, thief.gpuMask() & before.gpuMask() & (thief.node().equals(before.node()) ? -1L : 0L), "the copy shares no GPU");
        assertEquals(control.at("/response/allowed"), stolen.at("/response/allowed"));
        assertEquals(controlGpus, thief.gpuCount(), "the copy gets what the same pod without ACE's keys gets");
        // Nor can its /validate call take the victim's reservation: the copy's final object (with the API server's UID,
        // and the victim's annotation put back by a later webhook) is refused and releases nothing.
        Pod thiefFinal = Https.patchedPod(copy, stolen);
        thiefFinal.getMetadata().getAnnotations().put(AceKeys.RESERVATION, stored.getMetadata().getAnnotations().get(AceKeys.RESERVATION));
        if (!pinned) thiefFinal.getSpec().setAffinity(stored.getSpec().getAffinity());
        thiefFinal.getMetadata().setUid(null);
        JsonNode thiefValidated = Https.postReview("/validate", ForgeryGoldenTest.asFinal(copy, thiefFinal, "thief-validate"));
        assertFalse(thiefValidated.at("/response/allowed").asBoolean(), thiefValidated.toString());
        assertEquals(before, fleet.allocator().heldForRequest(victimReview.at("/request/uid").asText()).orElseThrow());
    }

    /** The victim's stored object as a tenant reads it, as a new pod of the same generateName. */
    private static ObjectNode copyOf(JsonNode review, Pod stored, boolean pinned, boolean keepKeys, boolean keepUid, String uid) {
        ObjectNode r = review.deepCopy();
        ((ObjectNode) r.get("request")).put("uid", uid);
        ObjectNode object = Https.MAPPER.valueToTree(stored);
        ObjectNode meta = (ObjectNode) object.get("metadata");
        meta.remove("name");
        if (!keepUid) meta.remove("uid");
        if (!keepKeys) meta.remove("annotations");
        if (!pinned) ((ObjectNode) object.get("spec")).remove("affinity");
        ((ObjectNode) r.get("request")).set("object", object);
        return r;
    }

    private JsonNode answer(String name, String cluster) {
        bootstrap.loadStandalone();
        pending.clear();
        if (cluster.equals("one-free-clique")) {
            admit("tp8", "fill-0");
            admit("tp8", "fill-1");
        }
        JsonNode response = Https.postReview("/mutate", Https.file(request(name)));
        GoldenFiles.assertGolden(Https.ADMISSION.resolve("responses/" + name + ".json"), GoldenFiles.withoutRandomIds(Https.readable(response)));
        return response;
    }

    private static String decisionOf(String name, JsonNode response) {
        Pod fin = Https.patchedPod(Https.file(request(name)), response);
        return fin.getMetadata().getAnnotations() == null ? null : fin.getMetadata().getAnnotations().get(AceKeys.RESERVATION);
    }

    private static java.nio.file.Path request(String name) { return Https.ADMISSION.resolve("requests/" + name + ".json"); }

    private void admit(String request, String uid) {
        ObjectNode review = Https.file(request(request)).deepCopy();
        ((ObjectNode) review.get("request")).put("uid", uid);
        assertTrue(Https.postReview("/mutate", review).at("/response/patch").isTextual());
    }

    /** GPU counts per node in the ledger (what is held, by whom it does not matter). */
    private Set<String> ledger() {
        return fleet.allocator().read(a -> a.ledger().all().stream()
                .filter(r -> r.owner().requestUid() == null || !r.owner().requestUid().startsWith("fill-"))
                .map(r -> r.gpuCount() + " GPUs").collect(Collectors.toCollection(TreeSet::new)));
    }
}
