package dev.ace.binpacker.admission;

/** Where the namespace's {@code ace.dev/policy} label comes from: a Namespace informer in-cluster, configuration standalone. */
@FunctionalInterface
public interface NamespacePolicies {
    NamespaceMode modeOf(String namespace);

    static NamespacePolicies always(NamespaceMode mode) { return ns -> mode; }

    /**
     * {@code ace.policy.observe-only}: every namespace observes, whatever its label says, except that an exempt one stays
     * exempt (ACE does nothing there at all).
     */
    static NamespacePolicies observeOnly(NamespacePolicies base) {
        return ns -> base.modeOf(ns) == NamespaceMode.EXEMPT ? NamespaceMode.EXEMPT : NamespaceMode.OBSERVE;
    }
}
