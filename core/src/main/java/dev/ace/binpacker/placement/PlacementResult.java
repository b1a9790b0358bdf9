package dev.ace.binpacker.placement;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.List;
import java.util.stream.Collectors;

/** The packer's answer: a node and GPU set, or every reason no node fits. */
public sealed interface PlacementResult permits PlacementResult.Placed, PlacementResult.Unschedulable {

    /**
     * @param fullBandwidth true when the GPUs are pairwise NVLinked (always true for one GPU)
     * @param domain        the NVLink domain name ({@code nvl0}) the GPUs sit in, null when none
     * @param damage        how much future TP capacity this choice costs (lower is better), for explanations
     * @param gpu           for a share: the GPU index chosen; equals the single bit of gpuMask
     */
    record Placed(String node, int nodeIndex, long gpuMask, boolean fullBandwidth, String domain,
                  double damage) implements PlacementResult {
        public int[] gpus() { return GpuBoard.indices(gpuMask); }
    }

    /** One filter reason and how many nodes it removed. */
    record ReasonCount(ReasonCode code, String detail, int nodes) {
        public String render() { return nodes + " " + code.render(detail); }
    }

    /** No node fits; {@code reasons} explains every node considered, most common first. */
    record Unschedulable(int nodesConsidered, List<ReasonCount> reasons) implements PlacementResult {
        public Unschedulable {
            reasons = List.copyOf(reasons);
        }

        /** "0/12 nodes are available: 8 have fewer than 4 free GPUs in one NVLink clique, 4 are in pool slicing." */
        public String message() {
            if (reasons.isEmpty()) return "0/" + nodesConsidered + " nodes are available.";
            return "0/" + nodesConsidered + " nodes are available: "
                    + reasons.stream().map(ReasonCount::render).collect(Collectors.joining(", ")) + ".";
        }

        public boolean hasReason(ReasonCode code) {
            return reasons.stream().anyMatch(r -> r.code() == code);
        }
    }
}
