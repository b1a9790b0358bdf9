package dev.ace.binpacker.cluster.pod;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Optional;

/**
 * The pod writes the leader makes, each with a precondition. The fabric8 adapter is
 * {@link Fabric8PodApi}; tests use an in-memory double that behaves as the API server does.
 */
public interface PodApi {
    Optional<Pod> get(String namespace, String name);

    /**
     * Applies an RFC 6902 patch whose first operations test what the leader saw.
     *
     * @throws Refused when a test failed or the API server refuses the change (409, 422)
     */
    void patch(String namespace, String name, ArrayNode ops);

    /** Deletes the pod if it is still at {@code resourceVersion}; @throws Refused when it changed (409). */
    void delete(String namespace, String name, String resourceVersion);

    /** Records a Kubernetes Event on the pod (best effort: an event is never worth failing for). */
    void event(PodFacts pod, String type, String reason, String message);

    /** The API server refused the write on its precondition or its validation: re-read and decide again. */
    final class Refused extends RuntimeException {
        private final int code;

        public Refused(int code, String message) {
            super(message);
            this.code = code;
        }

        public int code() { return code; }
    }
}
