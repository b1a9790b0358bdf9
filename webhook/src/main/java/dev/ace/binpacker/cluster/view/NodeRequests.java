package dev.ace.binpacker.cluster.view;

import dev.ace.binpacker.placement.Resources;
import java.util.HashMap;
import java.util.Map;

/**
 * What the pods bound to each GPU node request besides whole GPUs (cpu, memory, rdma/roce_gdr, pods...),
 * kept as per-node sums updated pod by pod, so fit before pin compares a pod's requests with what
 * kube-scheduler will see: allocatable minus the requests of every non-terminal pod bound there,
 * whoever placed it. Only a few numbers per pod are kept, and only for pods on GPU nodes. Thread-safe.
 */
final class NodeRequests {
    private record Entry(String node, Resources requests) {}

    private final Map<String, Entry> byPod = new HashMap<>();
    private final Map<String, Resources> byNode = new HashMap<>();

    /**
     * Records the pod's requests on {@code node} (null when it is not bound, finished, or not on a GPU
     * node). Returns the nodes whose sums changed (at most two: where it was, where it is).
     */
    synchronized java.util.Set<String> put(String uid, String node, Resources requests) {
        Entry old = byPod.get(uid);
        Entry now = node == null ? null : new Entry(node, requests);
        if (java.util.Objects.equals(old, now)) return java.util.Set.of();
        java.util.Set<String> changed = new java.util.HashSet<>();
        if (old != null) {
            byNode.computeIfPresent(old.node(), (n, sum) -> sum.minus(old.requests()));
            changed.add(old.node());
        }
        if (now == null) {
            byPod.remove(uid);
        } else {
            byPod.put(uid, now);
            byNode.merge(node, requests, Resources::plus);
            changed.add(node);
        }
        return changed;
    }

    synchronized java.util.Set<String> remove(String uid) { return put(uid, null, Resources.NONE); }

    synchronized Resources on(String node) { return byNode.getOrDefault(node, Resources.NONE); }

    synchronized void forgetNode(String node) {
        byNode.remove(node);
        byPod.values().removeIf(e -> e.node().equals(node));
    }

    synchronized int pods() { return byPod.size(); }
}
