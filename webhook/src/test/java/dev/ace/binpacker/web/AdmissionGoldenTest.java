package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.ClusterBootstrap;
import dev.ace.binpacker.cluster.Fleet;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Golden AdmissionReviews posted over HTTPS to /mutate on the demo inventory (fresh for each case).
 * The response must equal {@code tests/admission/responses/<case>.json} as a JSON tree (patch shown
 * decoded), and the patch, applied by zjsonpatch to the request's object, must yield the pod checked
 * field by field below.
 */
@QuarkusTest
class AdmissionGoldenTest {
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
    @ValueSource(strings = {"tp2", "tp4", "tp8", "inference-1gpu", "multinode-rank", "eval-job-1gpu", "embedding", "notebook",
            "fracturing-enforce", "fracturing-warn", "fracturing-audit", "fracturing-exempt", "dry-run", "exempt-namespace",
            "no-gpus", "update", "delete", "already-reserved", "pcie-only-selector", "pool-full-gated", "tei-turing", "tei-ampere"})
    void golden(String name) {
        JsonNode review = Https.file(Https.ADMISSION.resolve("requests/" + name + ".json"));
        if (name.equals("pool-full-gated")) fillInferencePool();
        JsonNode response = Https.postReview("/mutate", review);
        assertEquals(review.path("request").path("uid").asText(), response.path("response").path("uid").asText());
        assertEquals("admission.k8s.io/v1", response.path("apiVersion").asText());
        assertEquals("AdmissionReview", response.path("kind").asText());
        GoldenFiles.assertGolden(Https.ADMISSION.resolve("responses/" + name + ".json"), GoldenFiles.withoutRandomIds(Https.readable(response)));
        JsonNode r = response.path("response");
        Pod pod = r.path("patch").isTextual() ? Https.patchedPod(review, response) : null;
        // The API server calls /validate with the final object (patched, named) under a request uid of its own.
        JsonNode finalObject = pod == null ? review : ForgeryGoldenTest.asFinal(review, pod, review.at("/request/uid").asText() + "-v");
        JsonNode validated = Https.postReview("/validate", finalObject).path("response");
        assertEquals(r.path("allowed").asBoolean(), validated.path("allowed").asBoolean(), "validate agrees with mutate: " + validated);
        assertTrue(validated.path("patch").isMissingNode(), "a validating webhook never patches");
        check(name, review, r, pod);
    }

    private void fillInferencePool() {
        JsonNode tp8 = Https.file(Https.ADMISSION.resolve("requests/tp8.json"));
        for (int i = 0; i < 3; i++) {
            ObjectNode copy = tp8.deepCopy();
            ((ObjectNode) copy.get("request")).put("uid", "fill-" + i);
            JsonNode resp = Https.postReview("/mutate", copy);
            assertTrue(resp.path("response").path("patch").isTextual());
        }
        assertEquals(0, fleet.allocator().read(a -> dev.ace.binpacker.placement.PoolStats.of(a.state())).get(Pool.INFERENCE).freeGpus());
    }

    private void check(String name, JsonNode review, JsonNode r, Pod pod) {
        switch (name) {
            // TP 2 takes an NVLink-bridged pair of the general pool first, keeping the HGX domains whole for TP 4 and 8
            case "tp2" -> assertReserved(pod, 2, "a100-pcie-");
            case "tp4", "tp8" -> assertReserved(pod, Integer.parseInt(name.substring(2)), "hgx-");
            case "inference-1gpu" -> {
                assertReserved(pod, 1, "hgx-");
                assertEquals(new Quantity("1"), limits(pod).get(AceKeys.GPU));
            }
            case "multinode-rank" -> {
                assertReserved(pod, 1, "hgx-");
                assertTrue(annotation(pod, AceKeys.DECISION).contains("rank of a TP group over 2 nodes"));
            }
            case "eval-job-1gpu" -> assertSliced(pod, "nvidia.com/mig-7g.80gb");
            case "embedding", "notebook" -> assertSliced(pod, "nvidia.com/mig-1g.10gb");
            // Images built for one GPU architecture (issue 18): the demo's slicing pool is H100 MIG (compute capability 9.0),
            // where a Turing or an Ampere build of text-embeddings-inference refuses to start; the Hopper build
            // ("embedding") is the control and is sliced. Not moved, the pod could still reach the HGX boards of pool
            // inference (issue 34): the Ampere build is reserved on the L40S (compute capability 8.9), which runs it;
            // no node of the demo has the Turing GPUs its build needs, so it is denied rather than left to
            // kube-scheduler, which could give it a GPU of a clean NVLink domain it cannot even use.
            case "tei-turing", "tei-ampere" -> {
                String w = r.path("warnings").toString();
                assertTrue(w.contains("text-embeddings-inference:" + (name.equals("tei-turing") ? "turing-1.5" : "1.5")), w);
                r.path("warnings").forEach(x -> assertTrue(x.asText().length() <= 120, x.asText()));
                if (name.equals("tei-turing")) {
                    assertFalse(r.path("allowed").asBoolean());
                    assertTrue(r.path("status").path("message").asText().contains("no node it can reach has Turing GPUs"), r.toString());
                    assertEquals(0, fleet.allocator().ledger().size());
                } else {
                    assertReserved(pod, 1, "l40s-");
                    assertEquals(new Quantity("1"), limits(pod).get(AceKeys.GPU), "not moved to a MIG slice");
                }
            }
            case "fracturing-enforce" -> {
                assertFalse(r.path("allowed").asBoolean());
                assertEquals(403, r.path("status").path("code").asInt());
                String msg = r.path("status").path("message").asText();
                assertTrue(msg.contains("3 GPUs") && msg.contains("8-GPU NVLink domains") && msg.contains("request 2, 4 or 8"), msg);
                assertEquals(0, fleet.allocator().ledger().size());
            }
            case "fracturing-warn" -> {
                assertTrue(r.path("allowed").asBoolean());
                assertTrue(r.path("warnings").size() >= 2);
                r.path("warnings").forEach(w -> assertTrue(w.asText().length() <= 120, w.asText()));
                assertTrue(annotation(pod, AceKeys.DECISION).startsWith("warn: would deny"));
                assertEquals(limits(pod).get(AceKeys.GPU), new Quantity("3"), "warn changes nothing but the annotation");
            }
            case "fracturing-audit" -> {
                assertTrue(r.path("allowed").asBoolean());
                assertTrue(r.path("warnings").isMissingNode());
                assertTrue(r.path("auditAnnotations").path("would-deny").asText().contains("3 GPUs"));
                assertTrue(annotation(pod, AceKeys.DECISION).startsWith("audit: would deny"));
            }
            case "dry-run" -> {
                assertReserved(pod, 4, "hgx-");
                assertTrue(r.path("warnings").get(0).asText().startsWith("reserved 4 GPUs of one NUMA node on hgx-"));
                assertEquals(0, fleet.allocator().ledger().size(), "dry-run reserves nothing");
            }
            case "fracturing-exempt", "exempt-namespace", "no-gpus", "update", "delete" -> {
                assertTrue(r.path("allowed").asBoolean());
                assertTrue(r.path("patch").isMissingNode(), name + " must not be patched");
                assertEquals(0, fleet.allocator().ledger().size());
            }
            case "already-reserved" -> {
                // A reservation ACE did not make is never adopted: decided afresh inside the pod's own pin.
                assertTrue(fleet.allocator().reservation("0b0e8f8a-resv-0000-0000-000000000001").isEmpty());
                var held = fleet.allocator().heldForRequest(review.at("/request/uid").asText()).orElseThrow();
                assertEquals("hgx-h100-1", held.node());
                assertEquals(1, fleet.allocator().ledger().size());
                assertReserved(pod, 4, "hgx-h100-1");
                assertTrue(r.path("warnings").get(0).asText().startsWith("dropped ace.dev/reservation"), r.path("warnings").toString());
            }
            case "pcie-only-selector" -> {
                assertReserved(pod, 2, "l40s-0");
                assertTrue(r.path("warnings").toString().contains("no NVLink clique of 2 GPUs"));
                assertEquals("NVIDIA-L40S", pod.getSpec().getNodeSelector().get("nvidia.com/gpu.product"), "own selector kept");
            }
            case "pool-full-gated" -> {
                assertEquals(List.of(AceKeys.GATE), pod.getSpec().getSchedulingGates().stream().map(g -> g.getName()).toList());
                assertTrue(annotation(pod, AceKeys.DECISION).startsWith("waiting for 4 free GPUs in one NVLink clique on pool inference"));
                assertNull(pod.getSpec().getAffinity());
                assertEquals(1, pending.size());
            }
            default -> throw new AssertionError("no checks for " + name);
        }
    }

    private void assertReserved(Pod pod, int gpus, String nodePrefix) {
        JsonNode res = Https.read(annotation(pod, AceKeys.RESERVATION).getBytes());
        assertEquals(gpus, res.path("gpus").size());
        String node = res.path("node").asText();
        assertTrue(node.startsWith(nodePrefix), node);
        var terms = pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms();
        for (var t : terms) {
            assertTrue(t.getMatchFields().stream().anyMatch(e -> e.getKey().equals(AceKeys.NODE_NAME_FIELD)
                    && e.getOperator().equals("In") && e.getValues().equals(List.of(node))), t.toString());
        }
        assertFalse(annotation(pod, AceKeys.DECISION).isBlank());
        assertEquals(new Quantity(Integer.toString(gpus)), limits(pod).get(AceKeys.GPU), "the GPU count is never changed");
    }

    private void assertSliced(Pod pod, String resource) {
        assertEquals(new Quantity("1"), limits(pod).get(resource));
        assertEquals(new Quantity("1"), pod.getSpec().getContainers().get(0).getResources().getRequests().get(resource));
        assertNull(limits(pod).get(AceKeys.GPU));
        assertEquals("slicing", pod.getSpec().getNodeSelector().get(AceKeys.POOL));
        assertTrue(pod.getSpec().getTolerations().stream().anyMatch(t -> AceKeys.POOL.equals(t.getKey()) && "Exists".equals(t.getOperator())));
        assertEquals("node.kubernetes.io/not-ready", pod.getSpec().getTolerations().get(0).getKey(), "own tolerations kept");
        assertEquals("nvidia.com/gpu=1", annotation(pod, AceKeys.REWRITTEN_FROM));
    }

    private static Map<String, Quantity> limits(Pod pod) { return pod.getSpec().getContainers().get(0).getResources().getLimits(); }

    private static String annotation(Pod pod, String key) {
        String v = pod.getMetadata().getAnnotations() == null ? null : pod.getMetadata().getAnnotations().get(key);
        if (v == null) throw new AssertionError("no annotation " + key + " on " + pod.getMetadata());
        return v;
    }
}
