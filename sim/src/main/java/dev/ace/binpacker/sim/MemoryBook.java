package dev.ace.binpacker.sim;

import java.util.HashMap;
import java.util.Map;

/**
 * Memory taken on each node by the pods placed in one run, and by which pod: every policy books a pod's memory
 * when it places it and gives it back when the pod leaves. Kubernetes' scores read it, and so does the memory
 * check of runs that enforce it ({@link SimCluster#memoryFits}).
 */
final class MemoryBook {
    private record Taken(int node, long mib) {}

    private final long[] used;
    private final Map<String, Taken> byPod = new HashMap<>();

    MemoryBook(int nodes) { this.used = new long[nodes]; }

    /** MiB taken on {@code node}. */
    long used(int node) { return used[node]; }

    /** Books pod {@code id}'s {@code mib} on {@code node}. */
    void take(String id, int node, long mib) {
        used[node] += mib;
        byPod.put(id, new Taken(node, mib));
    }

    /** Gives back what pod {@code id} took: the node's index, or -1 when it took nothing. */
    int giveBack(String id) {
        Taken t = byPod.remove(id);
        if (t == null) return -1;
        used[t.node()] -= t.mib();
        return t.node();
    }
}
