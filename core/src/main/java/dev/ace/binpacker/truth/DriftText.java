package dev.ace.binpacker.truth;

import dev.ace.binpacker.topology.GpuBoard;

/**
 * What a person reading the pod's Events is told about a drift or a confirmation: which GPUs ACE
 * expected, which the node gave, and what ACE did about it. GPUs are nvidia-smi indices.
 */
public final class DriftText {
    private DriftText() {}

    public static String of(Drift d, String node, GpuBoard board) {
        return switch (d.kind()) {
            case MOVED -> "ACE expected " + gpus(d.before()) + " on " + node + "; the node gave " + list(d.after())
                    + clique(board, d.after()) + "; the ledger now holds those for this pod";
            case NOT_A_CLIQUE -> "this TP pod holds " + gpus(d.after()) + " on " + node
                    + ", which are not an NVLink clique although the board has cliques of that size: it runs over slower links than planned";
            case UNSEEN_POD -> "the node reports this pod holding " + gpus(d.after()) + " on " + node
                    + " that ACE's view of the cluster did not show; counted there from now on";
            case UNHEALTHY_GPU -> "the device plugin no longer offers " + gpus(d.after()) + " on " + node + ", held by this pod (unhealthy)";
            case DISPLACED -> "pods running on " + node + " hold " + gpus(d.before()) + ", which ACE reserved for this pod; "
                    + (d.after() == 0 ? "no other GPUs are free there, so ACE decides this pod again"
                    : "its reservation moved to " + list(d.after()) + clique(board, d.after()));
            case SPLIT_PAIR -> "ACE chose " + gpus(d.before()) + " on " + node + ", next to a GPU already in use; the node gave "
                    + list(d.after()) + " and broke a whole NVLink pair (NVIDIA/k8s-device-plugin#1193)";
        };
    }

    /** The Event of a TP pod whose GPUs the node confirmed. */
    public static String confirmed(String node, GpuBoard board, long gpus) {
        return BindingPromise.confirmed(node, gpus).text() + " confirmed by the node" + clique(board, gpus);
    }

    private static String clique(GpuBoard board, long gpus) {
        if (board == null || Long.bitCount(gpus) < 2) return "";
        return board.isClique(gpus) ? " (an NVLink clique)" : " (not an NVLink clique)";
    }

    private static String gpus(long mask) { return (Long.bitCount(mask) == 1 ? "GPU " : "GPUs ") + list(mask); }

    private static String list(long mask) {
        StringBuilder b = new StringBuilder();
        for (int g : GpuBoard.indices(mask)) b.append(b.length() == 0 ? "" : ",").append(g);
        return b.toString();
    }
}
