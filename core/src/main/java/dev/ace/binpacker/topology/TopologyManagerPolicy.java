package dev.ace.binpacker.topology;

import java.util.Locale;

/**
 * The kubelet Topology Manager policy of a node ({@code topologyManagerPolicy} in the kubelet
 * configuration), and which GPU sets the kubelet would admit under it.
 *
 * <p>The kubelet's device manager offers one NUMA-affinity hint per set of NUMA nodes that holds
 * enough free devices, and calls a hint <em>preferred</em> when it spans the fewest NUMA nodes that
 * could hold the request if every device of the resource were free ({@code minAffinitySize} in
 * pkg/kubelet/cm/devicemanager/topology_hints.go). {@code restricted} refuses a pod (with a
 * TopologyAffinityError) whose best hint is not preferred; {@code single-numa-node} also refuses one
 * whose best hint spans more than one NUMA node. ACE only reasons about GPUs here: CPU and memory
 * manager hints (Guaranteed pods with integer CPUs) can narrow the kubelet's choice further.
 */
public enum TopologyManagerPolicy {
    NONE("none"),
    BEST_EFFORT("best-effort"),
    RESTRICTED("restricted"),
    SINGLE_NUMA_NODE("single-numa-node");

    private final String label;

    TopologyManagerPolicy(String label) { this.label = label; }

    /** The kubelet's spelling, also the value of the node label the agent sets. */
    public String label() { return label; }

    /** True when the kubelet rejects pods whose GPUs are not NUMA-aligned under this policy. */
    public boolean constrains() { return this == RESTRICTED || this == SINGLE_NUMA_NODE; }

    /**
     * The policy for a kubelet configuration value or node label; {@link #NONE} (the kubelet's
     * default) for null or blank. Unknown values are refused so a typo is not taken for "no policy".
     */
    public static TopologyManagerPolicy parse(String value) {
        if (value == null || value.isBlank()) return NONE;
        String v = value.trim().toLowerCase(Locale.ROOT);
        for (TopologyManagerPolicy p : values()) if (p.label.equals(v)) return p;
        throw new IllegalArgumentException("unknown Topology Manager policy '" + value
                + "' (none, best-effort, restricted, single-numa-node)");
    }

    /** Like {@link #parse} but {@link #NONE} for an unknown value (labels are set by people too). */
    public static TopologyManagerPolicy parseOrNone(String value) {
        try {
            return parse(value);
        } catch (IllegalArgumentException e) {
            return NONE;
        }
    }

    /**
     * Whether the kubelet would admit a pod holding exactly {@code set} on {@code board} under this
     * policy. A board whose GPUs' NUMA nodes are unknown cannot be judged and is admitted: the
     * kubelet then decides on facts ACE does not have.
     */
    public boolean admits(GpuBoard board, long set) {
        if (!constrains() || set == 0) return true;
        long numas = numaNodes(board, set);
        if (numas < 0) return true;
        int span = Long.bitCount(numas);
        if (this == SINGLE_NUMA_NODE) return span == 1;
        return span <= minimalSpan(board, Long.bitCount(set));
    }

    /** True when some set of {@code k} GPUs on the board could ever be admitted (all GPUs free). */
    public boolean canEverAdmit(GpuBoard board, int k) {
        if (!constrains()) return k <= board.gpuCount();
        if (this == SINGLE_NUMA_NODE) {
            int[] perNuma = gpusPerNuma(board);
            if (perNuma == null) return k <= board.gpuCount();
            for (int c : perNuma) if (c >= k) return true;
            return false;
        }
        return k <= board.gpuCount();
    }

    /** NUMA nodes of a set as a mask, or -1 when a GPU's NUMA node is unknown. */
    static long numaNodes(GpuBoard board, long set) {
        long numas = 0;
        for (long rest = set; rest != 0; rest &= rest - 1) {
            int node = board.numaNode(Long.numberOfTrailingZeros(rest));
            if (node < 0 || node >= 64) return -1;
            numas |= 1L << node;
        }
        return numas;
    }

    /** The fewest NUMA nodes whose GPUs add up to at least {@code k} (the kubelet's minAffinitySize). */
    static int minimalSpan(GpuBoard board, int k) {
        int[] perNuma = gpusPerNuma(board);
        if (perNuma == null) return Integer.MAX_VALUE;
        int[] sorted = perNuma.clone();
        java.util.Arrays.sort(sorted);
        int sum = 0;
        int used = 0;
        for (int i = sorted.length - 1; i >= 0 && sum < k; i--) {
            sum += sorted[i];
            used++;
        }
        return sum >= k ? used : Integer.MAX_VALUE;
    }

    /** GPUs per NUMA node (index = NUMA node, zeros for nodes without GPUs), or null when any is unknown. */
    private static int[] gpusPerNuma(GpuBoard board) {
        int max = -1;
        for (int g = 0; g < board.gpuCount(); g++) {
            int node = board.numaNode(g);
            if (node < 0 || node >= 64) return null;
            max = Math.max(max, node);
        }
        int[] counts = new int[max + 1];
        for (int g = 0; g < board.gpuCount(); g++) counts[board.numaNode(g)]++;
        return counts;
    }
}
