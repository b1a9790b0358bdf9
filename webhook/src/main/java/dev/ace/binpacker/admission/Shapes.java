package dev.ace.binpacker.admission;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.PlacementResult;
import dev.ace.binpacker.placement.PoolStats;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.Classification;
import java.util.List;
import java.util.Optional;

/**
 * Shapes that fracture an NVLink domain of pool inference, refused in every class (DESIGN "Truth and
 * trust": a label may change a pod's class, never which shapes are allowed). A block of GPUs keeps a
 * domain whole only when its size is a power of two no larger than the domain (1, 2, 4, 8 on an
 * 8-GPU board); 3, 5, 6 or 7 GPUs always strand the rest. A lone GPU of a batch job may fill a hole
 * in a used domain, not split a clean one.
 */
final class Shapes {
    private Shapes() {}

    /** A multi-GPU request of a size that cannot be an aligned block of the domain, or empty. */
    static Optional<Decision> misaligned(Classification c, int domain, List<String> warnings) {
        int gpus = c.gpus();
        if (gpus <= 1 || gpus > domain || Integer.bitCount(gpus) == 1) return Optional.empty();
        return Optional.of(Decision.deny(c.workloadClass(), gpus + " GPUs " + what(c)
                + " would fracture the " + domain + "-GPU NVLink domains of pool inference; request " + aligned(domain)
                + " GPUs (an aligned block)" + labelNote(c), warnings, Why.Rule.FRACTURING));
    }

    /**
     * A 1-GPU pod that is not an identified server (a Job's pod whatever its class label says, an unclassified pod)
     * whose placement would split a clean domain: the check of the packer's decision {@code p}, under the allocator
     * lock ({@link Allocator#place(dev.ace.binpacker.placement.PlacementRequest, boolean, long, Allocator.Check)}).
     */
    static Optional<Decision> loneBatchGpu(Allocator al, PlacementResult.Placed p, Classification c, List<String> warnings) {
        if (c.gpus() != 1 || c.identifiedServer()) return Optional.empty();
        int idx = al.state().indexOf(p.node());
        if (idx < 0) return Optional.empty();
        NodeInfo n = al.state().node(idx);
        if (n.board() == null) return Optional.empty();
        int domain = n.board().largestClique();
        long free = al.state().freeMask(idx);
        if (domain < 2 || PoolStats.freeCliques(n, free, domain) == PoolStats.freeCliques(n, free & ~p.gpuMask(), domain)) {
            return Optional.empty();
        }
        String who = c.batchOwned() ? "a Job's pod" : "an " + c.what() + " (no identified server)";
        String fix = c.batchOwned() ? "; single GPUs of batch jobs belong on pool slicing"
                : "; single GPUs of batch work belong on pool slicing: label it " + AceKeys.WORKLOAD_CLASS
                        + "=batch to be moved there, or =inference if it is a server";
        return Optional.of(Decision.deny(c.workloadClass(), "1 GPU of " + who + " would split a clean " + domain
                + "-GPU NVLink domain on " + p.node() + fix + labelNote(c), warnings, Why.Rule.FRACTURING));
    }

    /** "2, 4 or 8" for an 8-GPU domain. */
    static String aligned(int domain) {
        StringBuilder b = new StringBuilder();
        for (int s = 2; s <= domain; s <<= 1) b.append(b.length() == 0 ? "" : s * 2 > domain ? " or " : ", ").append(s);
        return b.length() == 0 ? "1" : b.toString();
    }

    /** "inference server", or "inference pod" when a label gave the class and nothing tells the kind. */
    private static String what(Classification c) {
        return c.kind().equals(c.workloadClass().label()) ? c.kind() + " pod" : c.workloadClass().label() + " " + c.kind();
    }

    static String labelNote(Classification c) {
        return c.evidence().startsWith("label ") ? "; label " + AceKeys.WORKLOAD_CLASS + " changes the class, not the allowed shapes" : "";
    }
}
