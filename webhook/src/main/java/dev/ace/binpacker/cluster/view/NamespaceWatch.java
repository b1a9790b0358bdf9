package dev.ace.binpacker.cluster.view;

import dev.ace.binpacker.admission.NamespaceMode;
import dev.ace.binpacker.admission.NamespacePolicies;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Namespace;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** In-cluster: the {@code ace.dev/policy} label of every namespace, kept current by the Namespace informer. */
@Singleton
@jakarta.enterprise.inject.Typed(NamespaceWatch.class)
public class NamespaceWatch implements NamespacePolicies {
    /** The label value of each namespace ("" when it has none). */
    private final Map<String, String> labels = new ConcurrentHashMap<>();
    private volatile NamespaceMode unlabelled = NamespaceMode.ENFORCE;

    /** The mode of namespaces without the label ({@code ace.policy.default-mode}). */
    public void defaultMode(NamespaceMode m) { this.unlabelled = m; }

    public void upsert(Namespace ns) {
        Map<String, String> l = ns.getMetadata().getLabels();
        String v = l == null ? null : l.get(AceKeys.POLICY);
        labels.put(ns.getMetadata().getName(), v == null ? "" : v);
    }

    public void remove(Namespace ns) { labels.remove(ns.getMetadata().getName()); }

    @Override
    public NamespaceMode modeOf(String namespace) {
        String v = labels.get(namespace);
        return NamespaceMode.fromLabel(v == null || v.isEmpty() ? null : v, unlabelled);
    }
}
