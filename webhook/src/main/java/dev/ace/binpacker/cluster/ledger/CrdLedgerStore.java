package dev.ace.binpacker.cluster.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.Optional;

/**
 * {@link LedgerStore} on the API server: cluster-scoped {@code gpuledgers.ace.dev} objects through
 * fabric8's generic client (no discovery round trip, no generated model). {@code update} sends the
 * resourceVersion read, so the API server answers 409 when anyone wrote since.
 */
public final class CrdLedgerStore implements LedgerStore {
    public static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
            .withGroup(AceKeys.LEDGER_GROUP).withVersion(AceKeys.LEDGER_VERSION).withKind(AceKeys.LEDGER_KIND)
            .withPlural(AceKeys.LEDGER_PLURAL).withNamespaced(false).build();

    private final KubernetesClient client;
    private final LedgerCodec codec;

    public CrdLedgerStore(KubernetesClient client, ObjectMapper json) {
        this.client = client;
        this.codec = new LedgerCodec(json);
    }

    public NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> objects() {
        return client.genericKubernetesResources(CONTEXT);
    }

    public LedgerCodec codec() { return codec; }

    @Override
    public Optional<LedgerDoc> get(String node) {
        return Optional.ofNullable(objects().withName(node).get()).map(codec::read);
    }

    @Override
    public LedgerDoc create(LedgerDoc doc) {
        return write(() -> objects().resource(codec.write(doc)).create());
    }

    @Override
    public LedgerDoc update(LedgerDoc doc) {
        return write(() -> objects().resource(codec.write(doc)).update());
    }

    @Override
    public void delete(LedgerDoc doc) {
        write(() -> {
            objects().withName(doc.node()).lockResourceVersion(doc.resourceVersion()).delete();
            return null;
        });
    }

    private LedgerDoc write(java.util.function.Supplier<GenericKubernetesResource> call) {
        try {
            GenericKubernetesResource r = call.get();
            return r == null ? null : codec.read(r);
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) throw new StaleLedgerException(e.getMessage());
            throw e;
        }
    }
}
