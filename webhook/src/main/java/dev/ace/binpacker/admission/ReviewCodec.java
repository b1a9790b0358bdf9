package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/**
 * AdmissionReview JSON <-> {@link AdmissionRequest} / {@link AdmissionResult}. {@link #complete}
 * is the one place that echoes uid, apiVersion and kind and serialises the patch, so handlers
 * never touch them (controller-runtime's {@code Complete()}).
 */
public final class ReviewCodec {
    public static final String API_VERSION = "admission.k8s.io/v1";
    public static final String KIND = "AdmissionReview";

    private final ObjectMapper mapper;

    public ReviewCodec(ObjectMapper mapper) { this.mapper = mapper; }

    public ObjectMapper mapper() { return mapper; }

    public AdmissionRequest decode(JsonNode review) throws BadReviewException {
        if (review == null || !review.isObject()) throw new BadReviewException(400, "body is not a JSON object");
        String apiVersion = review.path("apiVersion").asText("");
        if (!API_VERSION.equals(apiVersion)) {
            throw new BadReviewException(400, "unsupported apiVersion '" + apiVersion + "': this webhook speaks " + API_VERSION);
        }
        if (!KIND.equals(review.path("kind").asText(""))) {
            throw new BadReviewException(400, "kind must be " + KIND + ", got '" + review.path("kind").asText("") + "'");
        }
        JsonNode r = review.get("request");
        if (r == null || !r.isObject()) throw new BadReviewException(400, "AdmissionReview has no request");
        String uid = r.path("uid").asText("");
        if (uid.isEmpty()) throw new BadReviewException(400, "request.uid is missing");
        String kind = r.path("kind").path("kind").asText("");
        String sub = r.hasNonNull("subResource") ? r.get("subResource").asText() : null;
        JsonNode object = r.hasNonNull("object") ? r.get("object") : null;
        Pod pod = null;
        if ("Pod".equals(kind) && object != null && object.isObject()) {
            try {
                pod = mapper.treeToValue(object, Pod.class);
            } catch (Exception e) {
                throw new BadReviewException(400, "request.object is not a Pod: " + firstLine(e.getMessage()));
            }
        }
        String ns = r.path("namespace").asText(pod != null && pod.getMetadata() != null ? pod.getMetadata().getNamespace() : "");
        String name = r.path("name").asText("");
        return new AdmissionRequest(uid, apiVersion, kind, sub, r.path("operation").asText(""), ns == null ? "" : ns,
                name, r.path("dryRun").asBoolean(false), object, pod, r.hasNonNull("oldObject") ? r.get("oldObject") : null);
    }

    /** The AdmissionReview response for a request (uid and apiVersion echoed, patch base64-encoded). */
    public ObjectNode complete(String uid, String apiVersion, AdmissionResult result) {
        ObjectNode out = mapper.createObjectNode();
        out.put("apiVersion", apiVersion == null || apiVersion.isEmpty() ? API_VERSION : apiVersion);
        out.put("kind", KIND);
        ObjectNode resp = out.putObject("response");
        resp.put("uid", uid);
        resp.put("allowed", result.allowed());
        if (!result.allowed() || result.message() != null) {
            ObjectNode status = resp.putObject("status");
            status.put("code", result.code());
            if (result.message() != null) status.put("message", result.message());
            if (!result.allowed()) status.put("reason", result.code() == 403 ? "Forbidden" : "BadRequest");
        }
        if (result.patch() != null) {
            resp.put("patchType", "JSONPatch");
            byte[] json = result.patch().toString().getBytes(StandardCharsets.UTF_8);
            resp.put("patch", Base64.getEncoder().encodeToString(json));
        }
        if (!result.warnings().isEmpty()) {
            var w = resp.putArray("warnings");
            result.warnings().forEach(w::add);
        }
        if (!result.auditAnnotations().isEmpty()) {
            ObjectNode a = resp.putObject("auditAnnotations");
            for (Map.Entry<String, String> e : result.auditAnnotations().entrySet()) a.put(e.getKey(), e.getValue());
        }
        return out;
    }

    private static String firstLine(String s) {
        if (s == null) return "undecodable";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
