package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.cluster.ClusterBootstrap;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** AdmissionReviews as real API servers and policy engines sent them (tests/admission/real, see SOURCES.md). */
@QuarkusTest
class RealReviewsTest {
    @Inject
    ClusterBootstrap bootstrap;

    @BeforeEach
    void fresh() { bootstrap.loadStandalone(); }

    /** Bare AdmissionRequests (kubewarden) get the v1 envelope the API server would have put around them. */
    static JsonNode envelope(JsonNode doc) {
        if (doc.has("request")) return doc;
        ObjectNode e = Https.MAPPER.createObjectNode();
        e.put("apiVersion", "admission.k8s.io/v1");
        e.put("kind", "AdmissionReview");
        e.set("request", doc);
        return e;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"admissionreview-v1-pod-create-ollama-apiserver.json", "kubewarden-admissionrequest-pod-create.json",
            "kubewarden-admissionrequest-pod-create-missing-labels.json"})
    void real_pods_without_gpus_are_allowed_untouched_on_both_webhooks(String file) {
        JsonNode review = envelope(Https.file(Https.ADMISSION.resolve("real/" + file)));
        for (String hook : new String[] {"/mutate", "/validate"}) {
            JsonNode resp = Https.postReview(hook, review);
            GoldenFiles.assertGolden(Https.ADMISSION.resolve("responses/real-" + hook.substring(1) + "-" + file), Https.readable(resp));
            assertEquals(review.at("/request/uid").asText(), resp.at("/response/uid").asText());
            assertTrue(resp.at("/response/allowed").asBoolean());
            assertTrue(resp.at("/response/patch").isMissingNode());
        }
    }

    @ParameterizedTest(name = "{0} with 2 GPUs added")
    @ValueSource(strings = {"admissionreview-v1-pod-create-ollama-apiserver.json"})
    void a_real_pod_given_gpus_but_no_known_server_keeps_its_resources_and_its_gpus_obey_batch_shapes(String file) {
        ObjectNode review = (ObjectNode) envelope(Https.file(Https.ADMISSION.resolve("real/" + file))).deepCopy();
        ObjectNode resources = (ObjectNode) review.at("/request/object/spec/containers/0/resources");
        resources.putObject("limits").put("nvidia.com/gpu", "2");
        JsonNode resp = Https.postReview("/mutate", review);
        GoldenFiles.assertGolden(Https.ADMISSION.resolve("responses/real-mutate-gpu-" + file), GoldenFiles.withoutRandomIds(Https.readable(resp)));
        assertTrue(resp.at("/response/allowed").asBoolean());
        assertTrue(resp.at("/response/warnings/0").asText().contains("ace.dev/workload-class"));
        var pod = Https.patchedPod(review, resp);
        assertEquals(review.at("/request/object/spec/containers/0/resources").toString(),
                Https.MAPPER.valueToTree(pod.getSpec().getContainers().get(0).getResources()).toString(), "never rewritten");
        // the batch-pool rule: pool general before pool inference (never pool slicing: ACE does not move what it cannot classify)
        assertTrue(pod.getMetadata().getAnnotations().get("ace.dev/decision").startsWith("reserved 2 GPUs"));
        assertTrue(pod.getMetadata().getAnnotations().get("ace.dev/decision").contains("in pool general"));
    }
}
