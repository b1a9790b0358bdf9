package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.ace.binpacker.cluster.ClusterBootstrap;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Each bad request gets its documented status or denial, and a good TP request right after still works. */
@QuarkusTest
class BadInputTest {
    private static final AtomicInteger UID = new AtomicInteger();
    @Inject
    ClusterBootstrap bootstrap;

    @BeforeEach
    void fresh() { bootstrap.loadStandalone(); }

    private static ObjectNode tp2() {
        ObjectNode r = (ObjectNode) Https.file(Https.ADMISSION.resolve("requests/tp2.json"));
        ((ObjectNode) r.get("request")).put("uid", "bad-input-" + UID.incrementAndGet());
        return r;
    }

    private static void goodRequestStillWorks() {
        JsonNode resp = Https.postReview("/mutate", tp2());
        assertTrue(resp.path("response").path("allowed").asBoolean());
        assertTrue(resp.path("response").path("patch").isTextual(), resp.toString());
    }

    private static void expectStatus(int status, String messagePart, Response r) {
        assertEquals(status, r.statusCode(), r.asString());
        assertTrue(r.asString().contains(messagePart), r.asString());
        goodRequestStillWorks();
    }

    @Test
    void empty_body_is_400() {
        expectStatus(400, "empty body", Https.post("/mutate", "application/json", new byte[0]));
    }

    @Test
    void truncated_json_is_400() {
        String full = tp2().toString();
        expectStatus(400, "not JSON", Https.post("/mutate", "application/json", full.substring(0, full.length() / 2).getBytes()));
    }

    @Test
    void a_10_mib_body_is_413() throws Exception {
        byte[] big = new byte[10 * 1024 * 1024];
        Arrays.fill(big, (byte) ' ');
        // Expect: 100-continue lets the server refuse on the Content-Length alone, as the API server's client would see it.
        var req = java.net.http.HttpRequest.newBuilder(java.net.URI.create(Https.baseUrl() + "/mutate"))
                .header("Content-Type", "application/json").expectContinue(true)
                .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(big)).build();
        var resp = Https.jdkClient().send(req, java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(413, resp.statusCode(), resp.body());
        goodRequestStillWorks();
    }

    @Test
    void wrong_content_type_is_415() {
        expectStatus(415, "application/json", Https.post("/validate", "text/plain", tp2().toString().getBytes()));
    }

    @Test
    void a_review_without_request_is_400_saying_so() {
        ObjectNode r = tp2();
        r.remove("request");
        expectStatus(400, "AdmissionReview has no request", Https.post("/mutate", "application/json", r.toString().getBytes()));
    }

    @Test
    void an_unknown_api_version_is_400_naming_the_supported_one() {
        ObjectNode r = tp2();
        r.put("apiVersion", "admission.k8s.io/v1beta1");
        expectStatus(400, "admission.k8s.io/v1", Https.post("/mutate", "application/json", r.toString().getBytes()));
    }

    @Test
    void a_jsonc_document_with_comments_is_400() throws Exception {
        byte[] jsonc = Files.readAllBytes(Https.ADMISSION.resolve("real/gatekeeper-docs-admissionreview-v1-request.jsonc"));
        expectStatus(400, "not JSON", Https.post("/mutate", "application/json", jsonc));
    }

    @ParameterizedTest(name = "nvidia.com/gpu: {0} is denied naming the field")
    @ValueSource(strings = {"-1", "0.5", "1e3", "abc"})
    void nonsense_gpu_quantities_are_denied_naming_the_field(String quantity) {
        ObjectNode r = tp2();
        ObjectNode res = (ObjectNode) r.at("/request/object/spec/containers/0/resources");
        ((ObjectNode) res.get("limits")).set("nvidia.com/gpu", new TextNode(quantity));
        ((ObjectNode) res.get("requests")).set("nvidia.com/gpu", new TextNode(quantity));
        for (String hook : new String[] {"/mutate", "/validate"}) {
            JsonNode resp = Https.postReview(hook, r).path("response");
            assertFalse(resp.path("allowed").asBoolean());
            assertEquals(403, resp.path("status").path("code").asInt());
            assertTrue(resp.path("status").path("message").asText().startsWith("spec.containers[0].resources.limits[\"nvidia.com/gpu\"]"),
                    resp.toString());
        }
        goodRequestStillWorks();
    }

    @Test
    void requests_differing_from_limits_are_denied_naming_the_requests_field() {
        ObjectNode r = tp2();
        ((ObjectNode) r.at("/request/object/spec/containers/0/resources/requests")).put("nvidia.com/gpu", "1");
        JsonNode resp = Https.postReview("/mutate", r).path("response");
        assertFalse(resp.path("allowed").asBoolean());
        String msg = resp.path("status").path("message").asText();
        assertTrue(msg.startsWith("spec.containers[0].resources.requests[\"nvidia.com/gpu\"]") && msg.contains("limits is 2"), msg);
        goodRequestStillWorks();
    }

    @Test
    void an_integer_quantity_is_read_like_a_string_one() {
        ObjectNode r = tp2();
        ObjectNode res = (ObjectNode) r.at("/request/object/spec/containers/0/resources");
        ((ObjectNode) res.get("limits")).put("nvidia.com/gpu", 2);
        ((ObjectNode) res.get("requests")).put("nvidia.com/gpu", 2);
        JsonNode resp = Https.postReview("/mutate", r).path("response");
        assertTrue(resp.path("allowed").asBoolean());
        String patch = new String(java.util.Base64.getDecoder().decode(resp.path("patch").asText()), StandardCharsets.UTF_8);
        assertTrue(patch.contains("\\\"gpus\\\":[0,1]"), patch);
    }
}
