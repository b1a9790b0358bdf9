package dev.ace.binpacker.observability;

import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Pool;
import java.util.EnumMap;
import java.util.Map;

/**
 * Contiguous versus fragmented NVLink capacity per pool, from one consistent view of the cluster.
 * A domain (connected NVLink component of a board) is {@code clean} when all its GPUs are free,
 * {@code full} when none is, {@code fragmented} otherwise. The fragmentation ratio is the share of
 * free GPUs that sit in fragmented domains: free GPUs a TP group of the domain's size cannot use.
 */
public record CapacityStats(Map<Pool, PoolStats> pools) {
    public record PoolStats(int cleanDomains, int fragmentedDomains, int fullDomains, int freeGpus, int usedGpus,
                            int freeInFragmented) {
        public double fragmentationRatio() { return freeGpus == 0 ? 0 : (double) freeInFragmented / freeGpus; }
    }

    public static CapacityStats of(ClusterState s) {
        Map<Pool, int[]> acc = new EnumMap<>(Pool.class);
        for (Pool p : Pool.values()) acc.put(p, new int[6]);
        for (int i = 0; i < s.capacity(); i++) {
            NodeInfo n = s.node(i);
            if (n == null || n.board() == null) continue;
            int[] a = acc.get(n.pool());
            long free = s.freeMask(i);
            int freeCount = Long.bitCount(free);
            a[3] += freeCount;
            a[4] += n.gpuCount() - freeCount;
            for (long d : n.board().nvlinkDomains()) {
                long f = free & d;
                if (f == d) a[0]++;
                else if (f == 0) a[2]++;
                else { a[1]++; a[5] += Long.bitCount(f); }
            }
        }
        Map<Pool, PoolStats> out = new EnumMap<>(Pool.class);
        acc.forEach((p, a) -> out.put(p, new PoolStats(a[0], a[1], a[2], a[3], a[4], a[5])));
        return new CapacityStats(out);
    }
}
