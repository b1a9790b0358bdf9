package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.ClusterBootstrap;
import dev.ace.binpacker.cluster.Fleet;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Workload AdmissionReviews posted over HTTPS to /validate-workloads, compared whole with
 * {@code tests/admission/responses/<case>.json}: a fracturing Job refused at apply time with the
 * message its pod gets, a Deployment warned in a warn namespace, a LeaderWorkerSet refused for its
 * worker template, a TP Deployment allowed, an UPDATE that leaves the template alone passed.
 * Nothing is ever reserved on this path.
 */
@QuarkusTest
class WorkloadGoldenTest {
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
    @ValueSource(strings = {"workload-job-fracturing", "workload-deployment-warn", "workload-lws-invalid", "workload-deployment-tp4",
            "workload-update-template-unchanged"})
    void golden(String name) {
        JsonNode review = Https.file(Https.ADMISSION.resolve("requests/" + name + ".json"));
        JsonNode response = Https.postReview("/validate-workloads", review);
        assertEquals(review.path("request").path("uid").asText(), response.path("response").path("uid").asText());
        GoldenFiles.assertGolden(Https.ADMISSION.resolve("responses/" + name + ".json"), Https.readable(response));
        JsonNode r = response.path("response");
        assertTrue(r.path("patch").isMissingNode(), "a validating webhook never patches");
        assertEquals(0, fleet.allocator().ledger().size(), "judging a workload reserves nothing");
        assertEquals(0, pending.size());
        switch (name) {
            case "workload-job-fracturing" -> {
                assertFalse(r.path("allowed").asBoolean());
                assertEquals(podAnswer("fracturing-enforce").path("status").path("message").asText(), r.path("status").path("message").asText(),
                        "kubectl apply of the Job fails with the message its pod gets");
            }
            case "workload-deployment-warn" -> {
                assertTrue(r.path("allowed").asBoolean());
                // The Deployment is batch by its ace.dev/workload-class label (the pod by its Job owner), so it also hears
                // that a label changes the class, not the allowed shapes; the rest is the pod's warning, word for word.
                String labelNote = "label ace.dev/workload-class changes the class, not the allowed shapes";
                assertTrue(r.path("warnings").toString().contains(labelNote), r.path("warnings").toString());
                assertEquals(podAnswer("fracturing-warn").path("warnings").toString().replace("batch job", "batch"),
                        r.path("warnings").toString().replace("\"" + labelNote + "\",", ""));
            }
            case "workload-lws-invalid" -> {
                assertFalse(r.path("allowed").asBoolean());
                assertTrue(r.path("status").path("message").asText().startsWith("worker pods: spec.containers[0].resources"), r.toString());
            }
            case "workload-deployment-tp4", "workload-update-template-unchanged" -> {
                assertTrue(r.path("allowed").asBoolean());
                assertTrue(r.path("warnings").isMissingNode(), r.toString());
            }
            default -> throw new AssertionError("no checks for " + name);
        }
    }

    /** What the pod webhook answers for the pod golden {@code name}, on a fresh inventory. */
    private JsonNode podAnswer(String name) {
        bootstrap.loadStandalone();
        ObjectNode review = (ObjectNode) Https.file(Https.ADMISSION.resolve("requests/" + name + ".json"));
        ((ObjectNode) review.get("request")).put("dryRun", true);
        return Https.postReview("/mutate", review).path("response");
    }
}
