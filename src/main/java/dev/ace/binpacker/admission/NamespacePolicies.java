package dev.ace.binpacker.admission;

/** Where the namespace's {@code ace.dev/policy} label comes from: a Namespace informer in-cluster, configuration standalone. */
@FunctionalInterface
public interface NamespacePolicies {
    NamespaceMode modeOf(String namespace);

    static NamespacePolicies always(NamespaceMode mode) { return ns -> mode; }
}
