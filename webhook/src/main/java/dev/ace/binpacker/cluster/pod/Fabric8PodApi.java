package dev.ace.binpacker.cluster.pod;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Instant;
import java.util.Optional;
import org.jboss.logging.Logger;

/** {@link PodApi} on fabric8: JSON patch with test operations, delete with a resourceVersion precondition, core/v1 Events. */
public final class Fabric8PodApi implements PodApi {
    private static final Logger LOG = Logger.getLogger(Fabric8PodApi.class);
    static final String COMPONENT = "ace-binpacker";

    private final KubernetesClient client;

    public Fabric8PodApi(KubernetesClient client) { this.client = client; }

    @Override
    public Optional<Pod> get(String namespace, String name) {
        return Optional.ofNullable(client.pods().inNamespace(namespace).withName(name).get());
    }

    @Override
    public void patch(String namespace, String name, ArrayNode ops) {
        try {
            client.pods().inNamespace(namespace).withName(name).patch(PatchContext.of(PatchType.JSON), ops.toString());
        } catch (KubernetesClientException e) {
            throw refusedOr(e);
        }
    }

    @Override
    public void delete(String namespace, String name, String resourceVersion) {
        try {
            client.pods().inNamespace(namespace).withName(name).lockResourceVersion(resourceVersion).delete();
        } catch (KubernetesClientException e) {
            throw refusedOr(e);
        }
    }

    @Override
    public void event(PodFacts pod, String type, String reason, String message) {
        String now = Instant.now().toString();
        try {
            client.v1().events().inNamespace(pod.namespace()).resource(new EventBuilder()
                    .withNewMetadata().withGenerateName(pod.name() + ".ace-").withNamespace(pod.namespace()).endMetadata()
                    .withNewInvolvedObject().withApiVersion("v1").withKind("Pod").withNamespace(pod.namespace())
                    .withName(pod.name()).withUid(pod.uid()).endInvolvedObject()
                    .withType(type).withReason(reason).withMessage(message)
                    .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                    .withNewSource().withComponent(COMPONENT).endSource()
                    .build()).create();
        } catch (KubernetesClientException e) {
            LOG.debugf("could not record event %s on %s: %s", reason, pod.key(), e.getMessage());
        }
    }

    private static RuntimeException refusedOr(KubernetesClientException e) {
        return e.getCode() == 409 || e.getCode() == 422 ? new Refused(e.getCode(), e.getMessage()) : e;
    }
}
