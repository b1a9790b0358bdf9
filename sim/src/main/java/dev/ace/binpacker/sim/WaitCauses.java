package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Reservation;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Why TP replicas waited in protocol B, counted when a replica cannot start on arrival: was the
 * fleet short of GPUs on boards that have a clique of its size (capacity), or were there enough
 * free GPUs there but no free clique (fragmented), and which kinds of pod held the partly used
 * clique boards at that moment (GPUs summed over the fragmented waits).
 */
public final class WaitCauses {
    /** Waits by TP size: [size][0] capacity, [size][1] fragmented. */
    private final Map<Integer, int[]> bySize = new TreeMap<>();
    private final Map<String, Long> heldOnPartial = new TreeMap<>();
    private long freeAtFragmented;

    void record(ClusterState s, SimCluster cluster, Policy p, FleetPod pod, List<String> live, Map<String, String> kinds) {
        int k = pod.gpus();
        int free = 0;
        boolean[] partial = new boolean[cluster.size()];
        for (int i = 0; i < cluster.size(); i++) {
            NodeInfo n = s.node(i);
            if (n.board().largestClique() < k) continue;
            int f = Long.bitCount(s.freeMask(i));
            free += f;
            partial[i] = f > 0 && f < n.gpuCount();
        }
        boolean fragmented = free >= k;
        bySize.computeIfAbsent(k, x -> new int[2])[fragmented ? 1 : 0]++;
        if (!fragmented) return;
        freeAtFragmented += free;
        for (String id : live) {
            Optional<Reservation> r = p.reservation(id);
            if (r.isEmpty() || !partial[s.indexOf(r.get().node())]) continue;
            heldOnPartial.merge(kinds.get(id), (long) Long.bitCount(r.get().gpuMask()), Long::sum);
        }
    }

    static WaitCauses sum(List<WaitCauses> all) {
        WaitCauses out = new WaitCauses();
        for (WaitCauses c : all) {
            c.bySize.forEach((k, v) -> {
                int[] o = out.bySize.computeIfAbsent(k, x -> new int[2]);
                o[0] += v[0];
                o[1] += v[1];
            });
            c.heldOnPartial.forEach((kind, g) -> out.heldOnPartial.merge(kind, g, Long::sum));
            out.freeAtFragmented += c.freeAtFragmented;
        }
        return out;
    }

    int capacity() { return bySize.values().stream().mapToInt(v -> v[0]).sum(); }

    int fragmented() { return bySize.values().stream().mapToInt(v -> v[1]).sum(); }

    /** One line: waits by TP size and cause, mean free GPUs at a fragmented wait, GPU share held on the partly used boards by kind. */
    void print(PrintStream out, String policy) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-16s capacity %4d  fragmented %4d  |", policy, capacity(), fragmented()));
        bySize.forEach((k, v) -> b.append(String.format(Locale.ROOT, " TP%d %d/%d", k, v[0], v[1])));
        int f = fragmented();
        b.append(String.format(Locale.ROOT, " | free GPUs at a fragmented wait %.1f | held on partly used boards:", f == 0 ? 0.0 : (double) freeAtFragmented / f));
        long total = heldOnPartial.values().stream().mapToLong(Long::longValue).sum();
        heldOnPartial.forEach((kind, g) -> b.append(String.format(Locale.ROOT, " %s %.0f%%", kind, 100.0 * g / Math.max(1, total))));
        out.println(b);
    }
}
