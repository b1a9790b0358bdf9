package dev.ace.binpacker.cluster;

import dev.ace.binpacker.admission.NamespaceMode;
import dev.ace.binpacker.admission.NamespacePolicies;
import dev.ace.binpacker.workload.AceKeys;
import io.fabric8.kubernetes.api.model.Namespace;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** In-cluster: the {@code ace.dev/policy} label of every namespace, kept current by the Namespace informer. */
@Singleton
@jakarta.enterprise.inject.Typed(NamespaceWatch.class)
public class NamespaceWatch implements NamespacePolicies {
    private final Map<String, NamespaceMode> modes = new ConcurrentHashMap<>();

    public void upsert(Namespace ns) {
        Map<String, String> labels = ns.getMetadata().getLabels();
        modes.put(ns.getMetadata().getName(), NamespaceMode.fromLabel(labels == null ? null : labels.get(AceKeys.POLICY)));
    }

    public void remove(Namespace ns) { modes.remove(ns.getMetadata().getName()); }

    @Override
    public NamespaceMode modeOf(String namespace) {
        return modes.getOrDefault(namespace, NamespaceMode.ENFORCE);
    }
}
