package dev.ace.binpacker.cluster.controller;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@link GroupStatusStore} on the API server: namespaced {@code acegroups.ace.dev} objects (deploy/acegroup-crd.yaml)
 * through fabric8's generic client. Updates and deletes name the resourceVersion read, so the API server answers 409
 * when anyone wrote since (a previous leader still finishing its pass); only objects labelled as ACE's are listed.
 */
public final class CrdGroupStatusStore implements GroupStatusStore {
    public static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
            .withGroup(AceKeys.LEDGER_GROUP).withVersion(AceKeys.LEDGER_VERSION).withKind(AceKeys.GROUP_STATUS_KIND)
            .withPlural(AceKeys.GROUP_STATUS_PLURAL).withNamespaced(true).build();

    private final KubernetesClient client;

    public CrdGroupStatusStore(KubernetesClient client) { this.client = client; }

    @Override
    public Map<String, Stored> list() {
        Map<String, Stored> out = new LinkedHashMap<>();
        for (GenericKubernetesResource r : client.genericKubernetesResources(CONTEXT).inAnyNamespace()
                .withLabel(AceKeys.MANAGED_BY, AceKeys.MANAGED_BY_ACE).list().getItems()) {
            out.put(GroupStatusStore.key(r.getMetadata().getNamespace(), r.getMetadata().getName()), read(r));
        }
        return out;
    }

    @Override
    public Optional<Stored> get(String namespace, String name) {
        return Optional.ofNullable(client.genericKubernetesResources(CONTEXT).inNamespace(namespace).withName(name).get()).map(CrdGroupStatusStore::read);
    }

    @Override
    public String create(GroupStatus s) {
        return call(() -> client.genericKubernetesResources(CONTEXT).inNamespace(s.namespace()).resource(write(s, null)).create());
    }

    @Override
    public String update(GroupStatus s, String resourceVersion) {
        return call(() -> client.genericKubernetesResources(CONTEXT).inNamespace(s.namespace()).resource(write(s, resourceVersion)).update());
    }

    @Override
    public void delete(String namespace, String name, String resourceVersion) {
        call(() -> {
            client.genericKubernetesResources(CONTEXT).inNamespace(namespace).withName(name).lockResourceVersion(resourceVersion).delete();
            return null;
        });
    }

    private static String call(java.util.function.Supplier<GenericKubernetesResource> write) {
        try {
            GenericKubernetesResource r = write.get();
            return r == null ? null : r.getMetadata().getResourceVersion();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) throw new Stale(e.getMessage());
            if (e.getCode() == 404) return null; // deleted meanwhile (its namespace went): nothing to write against
            throw e;
        }
    }

    static GenericKubernetesResource write(GroupStatus s, String resourceVersion) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("group", s.group());
        spec.put("source", s.source());
        spec.put("size", s.size());
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("phase", s.phase().label());
        status.put("ranksSeen", s.seen());
        status.put("ranksPlaced", s.placed());
        if (!s.reason().isEmpty()) status.put("reason", s.reason());
        if (s.waitingSince() > 0) status.put("waitingSince", Instant.ofEpochMilli(s.waitingSince()).toString());
        return new GenericKubernetesResourceBuilder().withApiVersion(AceKeys.LEDGER_GROUP + "/" + AceKeys.LEDGER_VERSION)
                .withKind(AceKeys.GROUP_STATUS_KIND)
                .withNewMetadata().withNamespace(s.namespace()).withName(s.name()).withResourceVersion(resourceVersion)
                .withLabels(Map.of(AceKeys.MANAGED_BY, AceKeys.MANAGED_BY_ACE)).endMetadata()
                .withAdditionalProperties(Map.of("spec", spec, "status", status)).build();
    }

    static Stored read(GenericKubernetesResource r) {
        Map<String, Object> spec = map(r.getAdditionalProperties().get("spec"));
        Map<String, Object> status = map(r.getAdditionalProperties().get("status"));
        GroupStatus.Phase phase = GroupStatus.Phase.WAITING;
        for (GroupStatus.Phase p : GroupStatus.Phase.values()) if (p.label().equals(status.get("phase"))) phase = p;
        long since = 0;
        try {
            if (status.get("waitingSince") instanceof String t) since = Instant.parse(t).toEpochMilli();
        } catch (java.time.format.DateTimeParseException e) {
            since = -1; // unreadable: differs from anything derived, so the next write repairs it
        }
        GroupStatus s = new GroupStatus(r.getMetadata().getNamespace(), r.getMetadata().getName(), string(spec.get("group")),
                string(spec.get("source")), number(spec.get("size")), number(status.get("ranksSeen")), number(status.get("ranksPlaced")),
                phase, string(status.get("reason")), since);
        return new Stored(s, r.getMetadata().getResourceVersion());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) { return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of(); }

    private static String string(Object o) { return o == null ? "" : o.toString(); }

    private static int number(Object o) { return o instanceof Number n ? n.intValue() : -1; }
}
