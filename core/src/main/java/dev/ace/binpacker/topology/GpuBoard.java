package dev.ace.binpacker.topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One node's GPUs and the links between them: an immutable link matrix plus NUMA affinity,
 * with the NVLink graph facts the packer needs precomputed once (domains, cliques, blocks).
 *
 * <p>GPU sets are bitmasks ({@code long}, bit i = GPU i), so a board holds at most 64 GPUs.
 * Clique lists are enumerated for boards of up to {@value #ENUMERATION_LIMIT} GPUs (every
 * real single-node board: HGX is 8, the largest PCIe chassis 10-16); larger boards keep
 * domains and the largest clique but no per-size lists.
 */
public final class GpuBoard {
    public static final int MAX_GPUS = 64;
    public static final int ENUMERATION_LIMIT = 16;

    private final String name;
    private final int gpuCount;
    private final Link[][] links;
    private final int[] numa;
    private final String[] cpuAffinity;

    private final long[] nvAdj;
    private final long allMask;
    private final List<Long> nvlinkDomains;
    private final int largestClique;
    private final long[][] cliquesBySize;
    private final long[][] blocksBySize;

    /**
     * @param name        what the board is ("HGX H100 8-GPU", or the file it was parsed from)
     * @param links       square matrix, SELF on the diagonal, symmetric in NVLink-ness
     * @param numa        NUMA node per GPU, -1 where unknown; null means all unknown
     * @param cpuAffinity CPU list per GPU as printed, null entries where unknown; null means all unknown
     */
    public GpuBoard(String name, Link[][] links, int[] numa, String[] cpuAffinity) {
        this.name = Objects.requireNonNull(name, "name");
        this.gpuCount = links.length;
        if (gpuCount < 1 || gpuCount > MAX_GPUS) {
            throw new IllegalArgumentException("a board holds 1.." + MAX_GPUS + " GPUs, got " + gpuCount);
        }
        this.links = new Link[gpuCount][];
        for (int i = 0; i < gpuCount; i++) {
            if (links[i].length != gpuCount) {
                throw new IllegalArgumentException("row GPU" + i + " has " + links[i].length + " cells, expected " + gpuCount);
            }
            this.links[i] = links[i].clone();
        }
        this.numa = numa == null ? filled(gpuCount, -1) : numa.clone();
        this.cpuAffinity = cpuAffinity == null ? new String[gpuCount] : cpuAffinity.clone();
        if (this.numa.length != gpuCount || this.cpuAffinity.length != gpuCount) {
            throw new IllegalArgumentException("NUMA and CPU affinity need one entry per GPU");
        }

        this.allMask = gpuCount == 64 ? -1L : (1L << gpuCount) - 1;
        this.nvAdj = new long[gpuCount];
        for (int i = 0; i < gpuCount; i++) {
            for (int j = 0; j < gpuCount; j++) {
                if (i == j) continue;
                boolean ij = this.links[i][j].isNvlink();
                boolean ji = this.links[j][i].isNvlink();
                // nvidia-smi prints a symmetric matrix; a one-sided NVLink is a broken paste, and
                // a pair is only usable for NCCL NVLink traffic when both ends agree.
                if (ij && ji) nvAdj[i] |= 1L << j;
            }
        }
        this.nvlinkDomains = computeDomains();
        this.largestClique = computeLargestClique();
        this.cliquesBySize = new long[gpuCount + 1][];
        this.blocksBySize = new long[gpuCount + 1][];
        enumerateCliques();
        computeBlocks();
    }

    private static int[] filled(int n, int v) {
        int[] a = new int[n];
        Arrays.fill(a, v);
        return a;
    }

    public String name() { return name; }

    public int gpuCount() { return gpuCount; }

    /** Mask with one bit per GPU of the board. */
    public long allGpus() { return allMask; }

    public Link link(int i, int j) { return links[i][j]; }

    /** NUMA node of GPU i, or -1 when the source did not say. */
    public int numaNode(int gpu) { return numa[gpu]; }

    /** CPU affinity of GPU i as printed (e.g. {@code 0-63,128-191}), or null. */
    public String cpuAffinity(int gpu) { return cpuAffinity[gpu]; }

    /** NVLink peers of GPU i as a mask. */
    public long nvlinkPeers(int gpu) { return nvAdj[gpu]; }

    /** Connected components of the NVLink graph with at least two GPUs, ordered by lowest GPU. */
    public List<Long> nvlinkDomains() { return nvlinkDomains; }

    /** Size of the largest set of GPUs that are pairwise NVLinked (1 when there is no NVLink). */
    public int largestClique() { return largestClique; }

    /** True when every pair of GPUs in {@code mask} is NVLinked (a single GPU is a clique). */
    public boolean isClique(long mask) {
        long rest = mask;
        while (rest != 0) {
            int i = Long.numberOfTrailingZeros(rest);
            rest &= rest - 1;
            long others = mask & ~(1L << i);
            if ((nvAdj[i] & others) != others) return false;
        }
        return true;
    }

    /** True when every pair of GPUs is NVLinked (NVSwitch boards, 4-GPU direct meshes). */
    public boolean isAllToAll() { return largestClique == gpuCount && gpuCount > 1; }

    /**
     * All NVLink cliques of exactly {@code size} GPUs, ascending by mask value. Size 1 lists every GPU.
     * Empty for sizes above the largest clique, and for boards above {@value #ENUMERATION_LIMIT} GPUs.
     */
    public long[] cliques(int size) {
        if (size < 1 || size > gpuCount) return new long[0];
        long[] c = cliquesBySize[size];
        return c == null ? new long[0] : c;
    }

    /**
     * Aligned blocks of {@code size} GPUs (a power of two): index-contiguous ranges
     * {@code [i*size, (i+1)*size)} that are NVLink cliques. nvidia-smi numbers GPUs in PCIe bus
     * order, so on HGX boards these are the PCIe-switch pairs and the NUMA halves; on DGX-1 they
     * are the fully linked quads. Keeping them whole is what keeps the next TP group fast.
     */
    public long[] alignedBlocks(int size) {
        if (size < 1 || size > gpuCount) return new long[0];
        long[] b = blocksBySize[size];
        return b == null ? new long[0] : b;
    }

    /** Sum over pairs of the set of the link distance rank (0 for NVLink): lower is better connected. */
    public int pathCost(long mask) {
        int cost = 0;
        long rest = mask;
        while (rest != 0) {
            int i = Long.numberOfTrailingZeros(rest);
            rest &= rest - 1;
            long later = rest;
            while (later != 0) {
                int j = Long.numberOfTrailingZeros(later);
                later &= later - 1;
                cost += distance(i, j);
            }
        }
        return cost;
    }

    /** Distance rank of a pair: 0 NVLink, then PIX 1 .. SYS 5. */
    public int distance(int i, int j) {
        if (i == j) return 0;
        if ((nvAdj[i] & (1L << j)) != 0) return 0;
        return links[i][j].kind().ordinal() - 1;
    }

    private List<Long> computeDomains() {
        List<Long> out = new ArrayList<>();
        long seen = 0;
        for (int i = 0; i < gpuCount; i++) {
            if ((seen & (1L << i)) != 0 || nvAdj[i] == 0) continue;
            long comp = 1L << i;
            long frontier = comp;
            while (frontier != 0) {
                int g = Long.numberOfTrailingZeros(frontier);
                frontier &= frontier - 1;
                long fresh = nvAdj[g] & ~comp;
                comp |= fresh;
                frontier |= fresh;
            }
            seen |= comp;
            out.add(comp);
        }
        return List.copyOf(out);
    }

    private int computeLargestClique() {
        int[] best = {1};
        bronKerbosch(0L, allMask, 0L, best);
        return best[0];
    }

    // Bron-Kerbosch with pivoting over bitmasks; boards are at most 64 GPUs, so this is instant.
    private void bronKerbosch(long r, long p, long x, int[] best) {
        if (p == 0 && x == 0) {
            best[0] = Math.max(best[0], Long.bitCount(r));
            return;
        }
        if (Long.bitCount(r) + Long.bitCount(p) <= best[0]) return;
        long px = p | x;
        int pivot = Long.numberOfTrailingZeros(px);
        long candidates = p & ~nvAdj[pivot];
        while (candidates != 0) {
            int v = Long.numberOfTrailingZeros(candidates);
            long bit = 1L << v;
            candidates &= candidates - 1;
            bronKerbosch(r | bit, p & nvAdj[v], x & nvAdj[v], best);
            p &= ~bit;
            x |= bit;
        }
    }

    private void enumerateCliques() {
        if (gpuCount > ENUMERATION_LIMIT) return;
        List<List<Long>> bySize = new ArrayList<>();
        for (int s = 0; s <= gpuCount; s++) bySize.add(new ArrayList<>());
        for (long m = 1; m <= allMask; m++) {
            if (isClique(m)) bySize.get(Long.bitCount(m)).add(m);
        }
        for (int s = 1; s <= gpuCount; s++) {
            cliquesBySize[s] = bySize.get(s).stream().mapToLong(Long::longValue).toArray();
        }
    }

    private void computeBlocks() {
        for (int size = 1; size <= gpuCount; size <<= 1) {
            List<Long> blocks = new ArrayList<>();
            for (int start = 0; start + size <= gpuCount; start += size) {
                long block = (size == 64 ? -1L : ((1L << size) - 1)) << start;
                if (isClique(block)) blocks.add(block);
            }
            blocksBySize[size] = blocks.stream().mapToLong(Long::longValue).toArray();
        }
    }

    /** GPU indices of a mask, ascending. */
    public static int[] indices(long mask) {
        int[] out = new int[Long.bitCount(mask)];
        int k = 0;
        long rest = mask;
        while (rest != 0) {
            out[k++] = Long.numberOfTrailingZeros(rest);
            rest &= rest - 1;
        }
        return out;
    }

    /** Mask of the given GPU indices. */
    public static long mask(int... gpus) {
        long m = 0;
        for (int g : gpus) m |= 1L << g;
        return m;
    }

    @Override
    public String toString() {
        return name + " (" + gpuCount + " GPUs, largest NVLink clique " + largestClique + ")";
    }
}
