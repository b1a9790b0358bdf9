package dev.ace.binpacker.cluster;

import dev.ace.binpacker.admission.NamespaceMode;
import dev.ace.binpacker.admission.NamespacePolicies;
import java.util.HashMap;
import java.util.Map;

/** Standalone: namespace modes from {@code ace.standalone.namespace-policies}, else the default mode. */
public final class ConfiguredNamespacePolicies implements NamespacePolicies {
    private final Map<String, NamespaceMode> modes = new HashMap<>();
    private final NamespaceMode fallback;

    public ConfiguredNamespacePolicies(Map<String, String> byNamespace, String defaultMode) {
        byNamespace.forEach((ns, m) -> modes.put(ns, NamespaceMode.fromLabel(m)));
        this.fallback = NamespaceMode.fromLabel(defaultMode);
    }

    @Override
    public NamespaceMode modeOf(String namespace) {
        return modes.getOrDefault(namespace, fallback);
    }
}
