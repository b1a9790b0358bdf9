package dev.ace.binpacker.admission;

import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.PlacementRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * TP pods admitted behind the {@code ace.dev/waiting-for-clique} gate, waiting for GPUs: a plain,
 * thread-safe queue in priority-then-age order. It decides nothing and calls nothing: the cluster
 * leader's reconciler walks {@link #waiting()}, reserves and patches with no lock of this queue held,
 * and removes a pod only once its release is written (a failed patch keeps it queued).
 */
public final class PendingDemand {
    /**
     * One gated pod. In a cluster {@code id} is the pod's UID (a pod re-created under the same name
     * is another entry); standalone it is the admission request UID. {@code podKey} is namespace/name.
     */
    public record Waiting(String id, String podKey, PlacementRequest request, int priority, long sinceMillis) {}

    private final Map<String, Waiting> byId = new LinkedHashMap<>();
    /**
     * The order each pod first joined the queue here. A pod's creationTimestamp has whole seconds, so two pods
     * created in one second tie on {@code sinceMillis}; the watch hands pods over in the order they were written,
     * so this keeps them first come, first served (a UID tie-break put them in random order). Pods a restart
     * lists together join in the list's order.
     */
    private final Map<String, Long> arrival = new java.util.HashMap<>();
    private long arrivals;
    private final Comparator<Waiting> order = Comparator.comparingInt(Waiting::priority).reversed()
            .thenComparingLong(Waiting::sinceMillis)
            .thenComparingLong((Waiting w) -> arrival.getOrDefault(w.id(), Long.MAX_VALUE))
            .thenComparing(Waiting::id);
    private final Metrics metrics;

    public PendingDemand(Metrics metrics) { this.metrics = metrics; }

    public synchronized void add(Waiting w) {
        byId.put(w.id(), w);
        arrival.putIfAbsent(w.id(), arrivals++);
        publish();
    }

    public synchronized Optional<Waiting> remove(String id) {
        Waiting w = byId.remove(id);
        arrival.remove(id);
        if (w != null) publish();
        return Optional.ofNullable(w);
    }

    public synchronized List<Waiting> waiting() {
        List<Waiting> l = new ArrayList<>(byId.values());
        l.sort(order);
        return l;
    }

    public synchronized int size() { return byId.size(); }

    /** Waiting pods that want an NVLink clique (TP replicas and ranks of TP groups): pool inference keeps batch work off while any waits. */
    public synchronized int waitingForCliques() {
        int n = 0;
        for (Waiting w : byId.values()) if (w.request().wantsClique()) n++;
        return n;
    }

    /** Seconds the oldest waiting pod of each TP size has waited at {@code nowMillis}; sizes with none waiting are absent. */
    public synchronized Map<Integer, Double> oldestWaitSeconds(long nowMillis) {
        Map<Integer, Double> out = new TreeMap<>();
        for (Waiting w : byId.values()) out.merge(w.request().tp(), Math.max(0, nowMillis - w.sinceMillis()) / 1000.0, Math::max);
        return out;
    }

    public synchronized void clear() {
        byId.clear();
        arrival.clear();
        publish();
    }

    public synchronized boolean contains(String id) { return byId.containsKey(id); }

    private void publish() {
        Map<Integer, Integer> byTp = new TreeMap<>();
        for (int tp : new int[] {2, 4, 8}) byTp.put(tp, 0);
        for (Waiting w : byId.values()) byTp.merge(w.request().tp(), 1, Integer::sum);
        byTp.forEach(metrics::pendingTpDemand);
    }
}
