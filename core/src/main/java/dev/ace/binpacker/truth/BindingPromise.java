package dev.ace.binpacker.truth;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.Link;
import dev.ace.binpacker.topology.TopologyManagerPolicy;

/**
 * What a reservation may honestly promise about which GPUs its pod gets. Nothing passes ACE's
 * indices to the node: the kubelet's device manager picks the devices (asking the device plugin,
 * which sees no pod identity), so before the node agent confirms them ACE can promise
 * <ul>
 *   <li>{@link Exact} indices only when there is no choice (the pod takes every GPU of the board) or
 *       once the node reported them;</li>
 *   <li>{@link NumaLocal} "k GPUs of one NUMA node" when the set lies in one NUMA node whose GPUs are
 *       all linked alike (NVSwitch halves, a bridged pair per socket): every such set is then
 *       equivalent, so the pod's performance is what ACE planned whichever the kubelet picks. The
 *       kubelet enforces the NUMA alignment under Topology Manager {@code restricted} or
 *       {@code single-numa-node}; under {@code none} it is the device plugin's locality preference;</li>
 *   <li>{@link NodeOnly} "k GPUs on node X" otherwise, and for a single GPU: the indices and the NVLink clique are advisory.</li>
 * </ul>
 */
public sealed interface BindingPromise {
    String node();

    long expected();

    /** Short human text for {@code ace.dev/decision}: what is promised, with ACE's expected indices. */
    String text();

    record Exact(String node, long expected) implements BindingPromise {
        @Override public String text() {
            int k = Long.bitCount(expected);
            return (k == 1 ? "GPU " : "GPUs ") + list(expected) + " on " + node;
        }
    }

    /** @param enforced the node's Topology Manager refuses sets outside one NUMA node */
    record NumaLocal(String node, long expected, int numaNode, boolean enforced) implements BindingPromise {
        @Override public String text() {
            int k = Long.bitCount(expected);
            return k + (k == 1 ? " GPU" : " GPUs") + " of one NUMA node on " + node + " (expected " + list(expected) + ")";
        }
    }

    record NodeOnly(String node, long expected) implements BindingPromise {
        @Override public String text() {
            int k = Long.bitCount(expected);
            return (k == 1 ? "a whole GPU" : k + " GPUs") + " on " + node + " (expected " + list(expected) + ")";
        }
    }

    /** What ACE can promise at admission for {@code set} on {@code board} of {@code node}. */
    static BindingPromise at(String node, GpuBoard board, TopologyManagerPolicy policy, long set) {
        if (set == board.allGpus()) return new Exact(node, set);
        // one GPU: the device plugin hands out the first device it lists, whatever the NUMA node
        if (Long.bitCount(set) == 1) return new NodeOnly(node, set);
        int numa = singleNuma(board, set);
        if (numa >= 0 && alikeWithin(board, numa)) return new NumaLocal(node, set, numa, policy.constrains());
        return new NodeOnly(node, set);
    }

    /** The promise once the node reported the pod's GPUs. */
    static BindingPromise confirmed(String node, long gpus) { return new Exact(node, gpus); }

    /** The NUMA node all GPUs of the set sit on, or -1 (spread, or unknown). */
    private static int singleNuma(GpuBoard board, long set) {
        int numa = -2;
        for (long rest = set; rest != 0; rest &= rest - 1) {
            int n = board.numaNode(Long.numberOfTrailingZeros(rest));
            if (n < 0 || (numa != -2 && n != numa)) return -1;
            numa = n;
        }
        return numa < 0 ? -1 : numa;
    }

    /** True when every pair of GPUs on the NUMA node has the same link: any k of them are interchangeable. */
    private static boolean alikeWithin(GpuBoard board, int numa) {
        Link first = null;
        for (int i = 0; i < board.gpuCount(); i++) {
            if (board.numaNode(i) != numa) continue;
            for (int j = i + 1; j < board.gpuCount(); j++) {
                if (board.numaNode(j) != numa) continue;
                Link l = board.link(i, j);
                if (first == null) first = l;
                else if (!first.equals(l)) return false;
            }
        }
        return true;
    }

    private static String list(long mask) {
        StringBuilder b = new StringBuilder();
        for (int g : GpuBoard.indices(mask)) b.append(b.length() == 0 ? "" : ",").append(g);
        return b.toString();
    }
}
