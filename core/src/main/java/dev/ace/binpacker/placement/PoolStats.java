package dev.ace.binpacker.placement;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * How whole the NVLink domains of each pool are: the figures behind {@code ace_nvlink_domains},
 * {@code ace_gpus} and {@code ace_fragmentation_ratio}.
 *
 * <p>A domain (connected NVLink component of a node) is <em>clean</em> when all its GPUs are
 * free, <em>full</em> when none is, <em>fragmented</em> otherwise. A free GPU is <em>stranded</em>
 * when no NVLink peer of it is free: it can serve 1-GPU work only. The fragmentation ratio is the
 * share of free GPUs (on NVLink boards) that sit in fragmented domains: 0 means every free GPU
 * is in a whole domain, 1 means none is.
 */
public record PoolStats(Pool pool, int nodes, int gpus, int freeGpus, int strandedGpus,
                        int cleanDomains, int fragmentedDomains, int fullDomains,
                        int freeInFragmentedDomains, int freeOnNvlinkBoards, int free8Cliques) {

    public double fragmentationRatio() {
        return freeOnNvlinkBoards == 0 ? 0 : (double) freeInFragmentedDomains / freeOnNvlinkBoards;
    }

    /** Computes the figures for every pool; callers hold the allocator's lock (see {@link Allocator#read}). */
    public static Map<Pool, PoolStats> of(ClusterState state) {
        int[][] acc = new int[Pool.values().length][10];
        for (int i = 0; i < state.capacity(); i++) {
            NodeInfo n = state.node(i);
            if (n == null || n.board() == null) continue;
            int[] a = acc[n.pool().ordinal()];
            long free = state.freeMask(i);
            a[0]++;
            a[1] += n.gpuCount();
            a[2] += Long.bitCount(free);
            for (long rest = free; rest != 0; rest &= rest - 1) {
                int g = Long.numberOfTrailingZeros(rest);
                if ((n.board().nvlinkPeers(g) & free) == 0) a[3]++;
            }
            List<Long> domains = n.board().nvlinkDomains();
            if (!domains.isEmpty()) a[8] += Long.bitCount(free);
            for (long d : domains) {
                long f = d & free;
                if (f == d) a[4]++;
                else if (f == 0) a[6]++;
                else {
                    a[5]++;
                    a[7] += Long.bitCount(f);
                }
            }
            a[9] += freeCliques(n, free, 8);
        }
        Map<Pool, PoolStats> out = new EnumMap<>(Pool.class);
        for (Pool p : Pool.values()) {
            int[] a = acc[p.ordinal()];
            out.put(p, new PoolStats(p, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]));
        }
        return out;
    }

    /**
     * Free disjoint NVLink cliques of {@code size} GPUs on one node: the one definition behind the
     * {@code ace_nvlink_domains} figures and admission's reserve of free 8-cliques. Exact on
     * all-to-all boards (a division); greedy over the board's clique list elsewhere.
     */
    public static int freeCliques(NodeInfo n, long free, int size) {
        return n.board() == null ? 0 : freeCliques(n.board(), free, size);
    }

    /** {@link #freeCliques(NodeInfo, long, int)} for a board and free mask. */
    public static int freeCliques(dev.ace.binpacker.topology.GpuBoard board, long free, int size) {
        if (board.gpuCount() < size) return 0;
        if (board.isAllToAll()) return Long.bitCount(free) / size;
        int count = 0;
        long left = free;
        for (long q : board.cliques(size)) {
            if ((q & ~left) == 0) {
                count++;
                left &= ~q;
            }
        }
        return count;
    }
}
