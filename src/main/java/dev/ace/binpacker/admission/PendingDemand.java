package dev.ace.binpacker.admission;

import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.PlacementRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * TP pods admitted behind the {@code ace.dev/waiting-for-clique} gate, waiting for GPUs. When
 * capacity frees, {@link #releaseNext} reserves a clique for the oldest waiting pod of the highest
 * priority that now fits; the caller (the cluster layer) then patches that pod: node affinity,
 * reservation annotation, gate removed. Thread-safe.
 */
public final class PendingDemand {
    /** One gated pod. {@code podKey} is namespace/name once known (generateName pods get it from the informer). */
    public record Waiting(String id, String podKey, PlacementRequest request, int priority, long sinceMillis) {}

    /** A waiting pod that just got its GPUs. */
    public record Released(Waiting waiting, Allocator.Outcome outcome) {}

    private static final Comparator<Waiting> ORDER = Comparator.comparingInt(Waiting::priority).reversed()
            .thenComparingLong(Waiting::sinceMillis).thenComparing(Waiting::id);

    private final Map<String, Waiting> byId = new LinkedHashMap<>();
    private final Metrics metrics;

    public PendingDemand(Metrics metrics) { this.metrics = metrics; }

    public synchronized void add(Waiting w) {
        byId.put(w.id(), w);
        publish();
    }

    public synchronized Optional<Waiting> remove(String id) {
        Waiting w = byId.remove(id);
        if (w != null) publish();
        return Optional.ofNullable(w);
    }

    public synchronized List<Waiting> waiting() {
        List<Waiting> l = new ArrayList<>(byId.values());
        l.sort(ORDER);
        return l;
    }

    public synchronized int size() { return byId.size(); }

    /** Seconds the oldest waiting pod of each TP size has waited at {@code nowMillis}; sizes with none waiting are absent. */
    public synchronized Map<Integer, Double> oldestWaitSeconds(long nowMillis) {
        Map<Integer, Double> out = new TreeMap<>();
        for (Waiting w : byId.values()) out.merge(w.request().tp(), Math.max(0, nowMillis - w.sinceMillis()) / 1000.0, Math::max);
        return out;
    }

    public synchronized void clear() {
        byId.clear();
        publish();
    }

    /**
     * Reserves GPUs for the first waiting pod, in priority-then-age order, that fits now, and removes it
     * from the queue. A big request at the head does not block smaller ones behind it when it cannot fit;
     * it keeps its place and is tried first at every release.
     */
    public synchronized Optional<Released> releaseNext(Allocator allocator, long nowMillis) {
        for (Waiting w : waiting()) {
            Allocator.Outcome o = allocator.place(w.request(), false, nowMillis);
            if (o.placed()) {
                byId.remove(w.id());
                publish();
                return Optional.of(new Released(w, o));
            }
        }
        return Optional.empty();
    }

    private void publish() {
        Map<Integer, Integer> byTp = new TreeMap<>();
        for (int tp : new int[] {2, 4, 8}) byTp.put(tp, 0);
        for (Waiting w : byId.values()) byTp.merge(w.request().tp(), 1, Integer::sum);
        byTp.forEach(metrics::pendingTpDemand);
    }
}
