package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * The parts of an AdmissionReview request the policy reads.
 *
 * @param kind         {@code request.kind.kind} (Pod, Deployment, ...)
 * @param subResource  {@code request.subResource}, null for the main resource
 * @param object       {@code request.object} as sent, null for DELETE
 * @param pod          the object as a Pod, null unless kind is Pod and the object decodes
 * @param oldObject    {@code request.oldObject} as sent (UPDATE, DELETE), null otherwise
 * @param warmUp       this replica's own warm-up review (never from the API server): decided like any other, not counted
 */
public record AdmissionRequest(String uid, String apiVersion, String kind, String subResource, String operation,
                               String namespace, String name, boolean dryRun, JsonNode object, Pod pod, JsonNode oldObject,
                               boolean warmUp) {
    public AdmissionRequest(String uid, String apiVersion, String kind, String subResource, String operation,
                            String namespace, String name, boolean dryRun, JsonNode object, Pod pod, JsonNode oldObject) {
        this(uid, apiVersion, kind, subResource, operation, namespace, name, dryRun, object, pod, oldObject, false);
    }

    /** A request without an old object: CREATE, and handlers that never look at it. */
    public AdmissionRequest(String uid, String apiVersion, String kind, String subResource, String operation,
                            String namespace, String name, boolean dryRun, JsonNode object, Pod pod) {
        this(uid, apiVersion, kind, subResource, operation, namespace, name, dryRun, object, pod, null);
    }

    /** The same request about another version of its pod (ACE's own keys removed, say). */
    public AdmissionRequest withPod(Pod other) {
        return new AdmissionRequest(uid, apiVersion, kind, subResource, operation, namespace, name, dryRun, object, other, oldObject, warmUp);
    }

    /** The same request marked as this replica's own warm-up. */
    public AdmissionRequest asWarmUp() {
        return new AdmissionRequest(uid, apiVersion, kind, subResource, operation, namespace, name, dryRun, object, pod, oldObject, true);
    }

    public boolean isPodCreate() {
        return "Pod".equals(kind) && (subResource == null || subResource.isEmpty()) && "CREATE".equals(operation) && pod != null;
    }
}
