package dev.ace.binpacker.admission;

/**
 * Where the decisions of namespaces in mode {@code observe} are recorded besides metrics and audit annotations:
 * an Event and a log line in-cluster ({@code cluster.ObservedDecisions}). Must not block or throw: admission
 * calls it on the request path.
 */
@FunctionalInterface
public interface DecisionLog {
    /**
     * @param pod  the pod's name, or its generateName prefix followed by {@code *}
     * @param text what ACE would have done, in the words of {@code explain}: "would place: reserved 4 GPUs ..."
     */
    void observed(String namespace, String pod, String result, String text);

    DecisionLog NONE = (namespace, pod, result, text) -> { };
}
